// The official MCP conformance suite (server mode) against a running instance of this service.
// The suite's client sends no credentials, and /mcp needs a key, so it talks to a small local proxy
// that adds `Authorization: Bearer <key>` and forwards everything else untouched (Host and Origin
// included, so the DNS-rebinding scenario reaches the service as sent). Scenarios that call the
// suite's own fixture tools, prompts and resources (a product has none of them) are listed in
// expected-failures.yml; any other failure, or a listed scenario that starts passing, fails the run.
// `npm run conformance:mcp` starts a service as `npm start` does (HOST unset: the default loopback
// listener) on a fresh data folder; `npm run conformance:mcp -- --url http://localhost:8080 --key gc_…`
// runs it against a server you already run. Needs the npm registry (npx fetches Node 22 and the suite).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnUntil, stop } from '../../bench/lib/spawn.js';
import { packageRoot } from '../../src/lib/root.js';

const SUITE = '@modelcontextprotocol/conformance@0.1.16';
const root = packageRoot();
const { values: args } = parseArgs({ options: { url: { type: 'string' }, key: { type: 'string' } } });
if (Boolean(args.url) !== Boolean(args.key)) {
  console.error('usage: run.js [--url http://localhost:PORT --key gc_…]  (both, or neither to start a service here)');
  process.exit(2);
}

/** The service under test: yours (--url, --key) or one started here as `npm start` starts it. */
async function target(): Promise<{ host: string; port: number; key: string; close(): Promise<void> }> {
  if (args.url) {
    const url = new URL(args.url);
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80), key: args.key!, close: async () => {} };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'gc-conformance-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
  const key = JSON.parse(execFileSync(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'create', '--plan', 'enterprise'], { env: { ...process.env, ...env } }).toString()).key as string;
  // HOST unset, so the default listener (loopback) and its Origin/Host rules are what the
  // dns-rebinding-protection scenario checks.
  const service = await spawnUntil(join(root, 'dist/src/main.js'), { ...env, HOST: undefined, PORT: '0', BOOTSTRAP_OWNER: 'false', POOL_THREADS: '1' }, /"msg":"listening".*"port":(\d+)/);
  return {
    host: '127.0.0.1',
    port: Number(service.match[1]),
    key,
    async close() {
      await stop(service.child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const service = await target();
const key = service.key;

const proxy = createServer((req, res) => {
  const headers = { ...req.headers };
  headers.authorization ??= `Bearer ${key}`;
  const upstream = request({ host: service.host, port: service.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ detail: `proxy: ${err.message}` }));
  });
  req.pipe(upstream);
});
await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;

const code = await new Promise<number>((resolve) => {
  const suite = spawn('npx', ['-y', '-p', 'node@22', '-p', SUITE, 'conformance', 'server', '--url', url, '--expected-failures', join(root, 'scripts/conformance/expected-failures.yml')], {
    stdio: 'inherit',
  });
  suite.on('exit', (c) => resolve(c ?? 1));
});
proxy.close();
await service.close();
process.exit(code);
