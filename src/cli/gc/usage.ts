// `gc usage`: the caller's summary for the current month (server mode: GET /v1/usage).
import { call } from './client.js';
import { CliError, EXIT, fmt, modeOf, printJson, type GlobalOptions } from './common.js';

export async function usageCommand(global: GlobalOptions): Promise<number> {
  const mode = modeOf(global);
  if (mode.kind === 'local') throw new CliError('usage is kept by the server: set GC_URL and GC_KEY (local mode records nothing)', EXIT.usage);
  const u = await call(mode, 'GET', '/v1/usage');
  if (global.json) printJson(u);
  else {
    const saved = u.original_tokens > 0 ? Math.round((u.tokens_saved / u.original_tokens) * 1000) / 10 : 0;
    process.stdout.write(
      [
        `plan          ${u.plan}`,
        `period        ${String(u.period_start).slice(0, 10)} … ${String(u.period_end).slice(0, 10)}`,
        `compressions  ${fmt(u.monthly_compressions)}`,
        `tokens        ${fmt(u.original_tokens)} → ${fmt(u.compressed_tokens)}`,
        `saved         ${fmt(u.tokens_saved)} (${saved}%)`,
      ].join('\n') + '\n',
    );
  }
  return EXIT.ok;
}
