// The built service on every Node.js runtime found (the running one, Node 22 and 24: test/runtime/runtimes.ts),
// started as `npm run serve` starts it, on HTTP_ENGINE=auto, then driven through REST, MCP and A2A with the
// official clients, HEAD and HTTP/1.0 over real sockets. It must still be running afterwards (issue 44: on
// Node 22/24 the first request used to kill it). docs/runtime.md says which engine each runtime gets and why.
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, asTask, textMessage } from '../a2a/helpers.js';
import { connectMcp, ok } from '../helpers/mcp.js';
import { DB_KIND, freshDatabase, sampleDocument } from '../helpers/server.js';
import { findRuntimes, probe, uwsLabel, type Probe } from './runtimes.js';
import { startService, type Service } from './service.js';

/** A database for one first start: an on-disk PGlite folder (as `npm start` makes), or a fresh PostgreSQL database. */
async function firstStartStore(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (DB_KIND === 'postgres') {
    const db = await freshDatabase();
    return { env: { DATABASE_URL: db.databaseUrl!, DATA_DIR: 'memory://' }, drop: () => db.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'gc-runtime-'));
  return { env: { DATABASE_URL: '', DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** Sends raw bytes; resolves with what came back once the head is complete and the connection closed or the body arrived. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

for (const runtime of findRuntimes()) {
  const bin = runtime.bin;
  if (!bin) {
    // Only a missing binary skips; a binary that is there but does not serve fails below.
    console.warn(`[runtime] ${runtime.label} skipped: ${runtime.missing}`);
    describe.skip(`${runtime.label}: ${runtime.missing}`, () => {
      it('serves REST, MCP and A2A', () => undefined);
    });
    continue;
  }

  describe(`${runtime.label}, built service on HTTP_ENGINE=auto (${DB_KIND})`, () => {
    let facts: Probe;
    let store: Awaited<ReturnType<typeof firstStartStore>>;
    let service: Service;
    let expectedEngine: 'uws' | 'node';
    let stopping = false;

    beforeAll(async () => {
      facts = probe(bin);
      // auto serves on uWS exactly where v20.57's binary for this ABI loads (glibc >= 2.38); node:http elsewhere.
      expectedEngine = facts.uwsLoads ? 'uws' : 'node';
      console.log(`[runtime] ${runtime.label}: ${facts.version}, ABI ${facts.abi}, glibc ${facts.glibc}; uWS binary ${facts.uwsLoads ? 'loads' : `does not load (${facts.uwsWhy})`}`);
      store = await firstStartStore();
      const env: Record<string, string | undefined> = { ...process.env, ...store.env, PORT: '0', HOST: '127.0.0.1', POOL_THREADS: '1' };
      delete env.HTTP_ENGINE; // the default users get
      service = await startService(bin, env);
    }, 120_000); // a first start runs every migration: 21-25 s on a loaded 2-core machine (docs/runtime.md)
    afterAll(async () => {
      if (service && service.exited() === null) await service.stop();
      await store?.drop();
    });
    afterEach(() => {
      if (!stopping) expect(service?.exited() ?? null, `the service exited:\n${service?.output()}`).toBeNull();
    });

    it('logs listening with the engine it chose, and warns at start only on a Node past end of life', () => {
      expect(service.listening).toMatchObject({ http_engine: expectedEngine, node: facts.version });
      expect(service.listening.http_engine_package).toBe(expectedEngine === 'uws' ? uwsLabel() : null);
      expect(String(service.listening.http_engine_reason)).not.toBe('');
      const eolWarning = service.logs().some((l) => l.level === 'warn' && l.msg === 'Node.js past end of life');
      expect(eolWarning).toBe(facts.major < 22);
    });

    it('REST: /v1/compress with the owner key printed at first start', async () => {
      const res = await fetch(`${service.url}/v1/compress`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.ownerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: sampleDocument(), fidelity: 'balanced' }),
      });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.compressed_tokens).toBeGreaterThan(0);
      expect(body.compressed_tokens).toBeLessThan(body.original_tokens);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      // Without a key: refused with a detail, and the process carries on.
      const refused = await fetch(`${service.url}/v1/compress`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
      expect((await refused.json()).detail).toEqual(expect.any(String));
    });

    it('MCP: the official SDK client initializes, lists tools and calls estimate_tokens', async () => {
      const client: Client = await connectMcp(service.url, service.ownerKey, 'runtime-test');
      try {
        expect(client.getServerVersion()?.name).toBeTruthy();
        const tools = await client.listTools();
        expect(tools.tools.map((t) => t.name)).toContain('estimate_tokens');
        const estimate = await ok(client, 'estimate_tokens', { text: 'count these few words on every runtime' });
        expect(estimate.accurate_tokens).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    });

    it('A2A: message:send through the official client answers a completed task', async () => {
      const client = await a2aClient(service.url, service.ownerKey);
      const task = asTask(await client.sendMessage(textMessage(sampleDocument())));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.artifacts[0]?.name).toBe('compressed_text');
    });

    it('HEAD on a GET route: the GET status and headers, no body', async () => {
      const get = await fetch(`${service.url}/health/liveness`);
      const getBody = await get.text();
      const head = await fetch(`${service.url}/health/liveness`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(getBody)));
      expect(await head.text()).toBe('');
    });

    it('HTTP/1.0: answered with a status, and the connection closed', async () => {
      const reply = await rawExchange(service.port, 'GET /health/liveness HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n');
      // node:http serves HTTP/1.0; uWS v20.57 refuses it with 505 (docs/runtime.md). Either way, an answer.
      if (expectedEngine === 'node') expect(reply).toMatch(/^HTTP\/1\.[01] 200 [\s\S]*\r\n\r\n\{"status":"ok"\}$/);
      else expect(reply).toMatch(/^HTTP\/1\.1 505 /);
    });

    it('is still running after all of that, and /health/diagnostics names the engine', async () => {
      const res = await fetch(`${service.url}/health/diagnostics`);
      expect(res.status).toBe(200);
      const { http } = await res.json();
      expect(http).toEqual({ engine: expectedEngine, package: expectedEngine === 'uws' ? uwsLabel() : null, reason: service.listening.http_engine_reason, node: facts.version });
      expect(service.exited()).toBeNull();
    });

    it('stops on SIGTERM with exit code 0', async () => {
      stopping = true;
      expect(await service.stop()).toBe(0);
    });
  });
}
