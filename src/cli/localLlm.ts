// Standalone local LLM provider: `node dist/src/cli/localLlm.js [--port 11435] [--host 127.0.0.1] [--require-key KEY]`
// (port default: LLM_LOCAL_PORT; 0, its default, picks a free port and prints it). OpenAI-compatible base URL http://HOST:PORT/v1, Anthropic
// base URL http://HOST:PORT; deterministic answers (docs/providers.md).
import { loadConfig } from '../config.js';
import { LocalLlmServer } from '../providers/llm/localServer.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const config = loadConfig();
const server = new LocalLlmServer({
  host: arg('host') ?? '127.0.0.1',
  port: Number(arg('port') ?? config.llm.localPort),
  requiredKey: arg('require-key') ?? null,
});
await server.start();
process.stdout.write(JSON.stringify({ msg: 'local LLM provider listening', openai_base_url: server.openAiBaseUrl, anthropic_base_url: server.url }) + '\n');
const stop = () => void server.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
