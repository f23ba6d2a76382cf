// A small client for a running service: REST, MCP (official SDK client) and A2A (official client), plus HEAD
// and HTTP/1.0 over raw sockets, then /health/diagnostics must name the expected engine. Exits 1 on the
// first failure. Used by scripts/ci/debian13-smoke.sh against the service in the Debian 13 root.
//   node scripts/ci/smoke.mjs --url http://127.0.0.1:PORT --key gc_... [--engine uws|node] [--only rest,mcp,a2a,head,http10]
// (/health/diagnostics is always checked, last.)
import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';

const { values: args } = parseArgs({ options: { url: { type: 'string' }, key: { type: 'string' }, engine: { type: 'string' }, only: { type: 'string' } } });
if (!args.url || !args.key) {
  console.error('usage: node scripts/ci/smoke.mjs --url http://127.0.0.1:PORT --key gc_... [--engine uws|node] [--only rest,mcp,a2a,head,http10]');
  process.exit(2);
}
const { url, key } = args;
const auth = { authorization: `Bearer ${key}` };
const text =
  'Install the package with npm. The service requires Node.js 24. Set PORT to change the listening port; the default is 8080. ' +
  'Every request under /v1 needs a bearer token. Keys are stored as SHA-256 hashes, never in plain text. '.repeat(3);

function check(ok, what, detail = '') {
  if (!ok) throw new Error(`${what}${detail ? `: ${detail}` : ''}`);
  console.log(`ok   ${what}`);
}

async function rest() {
  const res = await fetch(`${url}/v1/compress`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text, fidelity: 'balanced' }) });
  const body = await res.json();
  check(res.status === 200 && body.compressed_tokens > 0 && body.compressed_tokens < body.original_tokens, 'REST POST /v1/compress', `${res.status} ${JSON.stringify(body).slice(0, 300)}`);
}

async function mcp() {
  const client = new Client({ name: 'ci-smoke', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: auth } }));
  try {
    check(!!client.getServerVersion()?.name, 'MCP initialize (official SDK client)');
    const result = await client.callTool({ name: 'estimate_tokens', arguments: { text } });
    const data = result.structuredContent ?? JSON.parse(result.content[0].text);
    check(!result.isError && data.accurate_tokens > 0, 'MCP tools/call estimate_tokens', JSON.stringify(data).slice(0, 300));
  } finally {
    await client.close();
  }
}

async function a2a() {
  const fetchImpl = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers ?? {}), ...auth } });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new RestTransportFactory({ fetchImpl }), new JsonRpcTransportFactory({ fetchImpl })] }),
  );
  const client = await factory.createFromUrl(url);
  const request = SendMessageRequest.fromJSON({ message: { messageId: `smoke-${Date.now()}`, role: 'ROLE_USER', parts: [{ text, mediaType: 'text/plain' }] } });
  const task = await client.sendMessage(request);
  check(task?.status?.state === TaskState.TASK_STATE_COMPLETED && task.artifacts?.[0]?.name === 'compressed_text', 'A2A message:send (official client)', JSON.stringify(task).slice(0, 300));
}

async function head() {
  const res = await fetch(`${url}/health/liveness`, { method: 'HEAD' });
  check(res.status === 200 && (await res.text()) === '', 'HEAD /health/liveness', String(res.status));
}

function http10() {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`GET /health/liveness HTTP/1.0\r\nHost: ${hostname}\r\n\r\n`));
    let reply = '';
    socket.on('data', (d) => (reply += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      // node:http serves HTTP/1.0; uWS v20.57 refuses it with 505 at once (docs/runtime.md).
      check(/^HTTP\/1\.[01] (200|505) /.test(reply), 'HTTP/1.0 request answered, connection closed', JSON.stringify(reply.slice(0, 120)));
      resolve();
    });
  });
}

async function diagnostics() {
  const res = await fetch(`${url}/health/diagnostics`);
  const { http } = await res.json();
  console.log(`     engine: ${JSON.stringify(http)}`);
  check(res.status === 200 && (!args.engine || http?.engine === args.engine), `/health/diagnostics names engine ${args.engine ?? http?.engine}`, JSON.stringify(http));
}

const checks = { rest, mcp, a2a, head, http10 };
const chosen = args.only ? args.only.split(',') : Object.keys(checks);
try {
  for (const name of chosen) {
    if (!checks[name]) throw new Error(`--only: no check named ${name} (${Object.keys(checks).join(', ')})`);
    await checks[name]();
  }
  await diagnostics();
} catch (err) {
  console.error(`FAIL ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
