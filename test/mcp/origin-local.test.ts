// A loopback page calling a loopback server (issue 45): `npm start` listens on 127.0.0.1 by default, and
// there a request with `Origin: http://localhost:PORT` and `Host: localhost:PORT` is served, as the MCP
// conformance suite's dns-rebinding-protection scenario checks; a rebound name (Host and Origin
// evil.example) and a foreign Origin are refused 403. A server bound to all interfaces (HOST=0.0.0.0,
// the Docker image) serves a loopback page calling it by a loopback name too, and still refuses both.
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnUntil, stop } from '../../bench/lib/spawn.js';
import { loadConfig } from '../../src/config.js';
import { packageRoot } from '../../src/lib/root.js';
import { DB_KIND, freshDatabase, startTestServer, type TestServer } from '../helpers/server.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'origin-local-test', version: '1.0.0' } },
});

/** POST /mcp initialize to 127.0.0.1:port with exactly these Host and Origin headers (fetch cannot set Host). */
function initialize(port: number, key: string, host: string, origin?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host, authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (origin !== undefined) headers.origin = origin;
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(INITIALIZE);
  });
}

/** Whether a TCP connection to address:port is accepted. */
function accepts(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe(`npm start's default listener and a loopback page (${DB_KIND})`, () => {
  let proc: Awaited<ReturnType<typeof spawnUntil>>;
  let port: number;
  let key: string;
  let dataDir: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await freshDatabase();
    drop = db.drop;
    dataDir = mkdtempSync(join(tmpdir(), 'gc-origin-'));
    // As `npm start` runs it: no HOST, so the default applies.
    const { HOST: _h, DATABASE_URL: _d, DATA_DIR: _p, ...env } = process.env;
    proc = await spawnUntil(
      join(packageRoot(), 'dist/src/main.js'),
      { ...env, HOST: undefined, DATABASE_URL: db.databaseUrl ?? '', DATA_DIR: dataDir, PORT: '0', POOL_THREADS: '1' },
      /(gc_[0-9a-f]{32})/,
    );
    key = proc.match[1]!;
    port = Number(/"msg":"listening".*?"port":(\d+)/.exec(proc.output())![1]);
  });
  afterAll(async () => {
    if (proc) await stop(proc.child);
    rmSync(dataDir, { recursive: true, force: true });
    await drop?.();
  });

  it('listens on loopback only by default', async () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(proc.output()).toMatch(/"msg":"listening","host":"127\.0\.0\.1"/);
    expect(await accepts('127.0.0.1', port)).toBe(true);
    // Another address of this machine, where there is one, gets no connection.
    const external = Object.values(networkInterfaces()).flat().find((a) => a && !a.internal && a.family === 'IPv4');
    if (external) expect(await accepts(external.address, port)).toBe(false);
  });

  it('serves a loopback page calling it by a loopback name (the conformance "valid localhost" check)', async () => {
    for (const name of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const res = await initialize(port, key, name, `http://${name}`);
      expect(res.status, `${name}: ${res.body}`).toBe(200);
    }
    // Another local page (a browser-based inspector on its own port) calling this server.
    expect((await initialize(port, key, `localhost:${port}`, 'http://localhost:6274')).status).toBe(200);
  });

  it('refuses a rebound name and a foreign Origin with 403', async () => {
    const rebound = await initialize(port, key, 'evil.example.com', 'http://evil.example.com');
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).detail).toContain('evil.example.com');
    expect((await initialize(port, key, 'evil.example.com')).status).toBe(403);
    expect((await initialize(port, key, `localhost:${port}`, 'https://evil.example')).status).toBe(403);
  });
});

describe(`a server on all interfaces (HOST=0.0.0.0) and a loopback page (${DB_KIND})`, () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer({ host: '0.0.0.0', poolThreads: 1 });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves a loopback page calling it by a loopback name', async () => {
    const res = await initialize(port, server.ownerKey, `localhost:${port}`, `http://localhost:${port}`);
    expect(res.status, res.body).toBe(200);
    expect((await initialize(port, server.ownerKey, `127.0.0.1:${port}`, `http://127.0.0.1:${port}`)).status).toBe(200);
  });

  it('refuses a rebound name, a loopback Origin sent to another name, and a foreign Origin', async () => {
    expect((await initialize(port, server.ownerKey, 'evil.example.com', 'http://evil.example.com')).status).toBe(403);
    expect((await initialize(port, server.ownerKey, 'service.example.com', `http://localhost:${port}`)).status).toBe(403);
    expect((await initialize(port, server.ownerKey, `localhost:${port}`, 'https://evil.example')).status).toBe(403);
    // No Origin: a non-browser client, served under any name.
    expect((await initialize(port, server.ownerKey, 'service.example.com')).status).toBe(200);
  });
});
