import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { runTask } from '../../src/domain/compute.js';
import { openStore } from '../../src/store/index.js';
import { createLogger } from '../../src/lib/log.js';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../../bench/lib/spawn.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { metricValue } from '../helpers/metrics.js';
import { DB_KIND, freshDatabase, sampleDocument, startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';

const root = packageRoot();
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

/** One store for several starts: a temp PGlite folder, or a fresh PostgreSQL database. */
async function sharedStore(): Promise<{ databaseUrl: string | null; dataDir: string; env: Record<string, string> }> {
  const db = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'gc-test-'));
  cleanup.push(async () => {
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { databaseUrl: db.databaseUrl, dataDir, env: { DATABASE_URL: db.databaseUrl ?? '', DATA_DIR: dataDir } };
}

describe(`lifecycle (${DB_KIND})`, () => {
  it('creates the owner once: a restart on the same store keeps the first key and prints none', async () => {
    const store = await sharedStore();
    const config = loadConfig({}, { host: '127.0.0.1', port: 0, poolThreads: 1, ...store });
    const first = await startApp(config, createLogger(false));
    expect(first.ownerKey).toMatch(/^gc_[0-9a-f]{32}$/);
    await first.close();
    const second = await startApp(config, createLogger(false));
    try {
      expect(second.ownerKey).toBeNull();
      const res = await fetch(`http://127.0.0.1:${second.port}/v1/keys`, { headers: { authorization: `Bearer ${first.ownerKey}` } });
      expect(res.status).toBe(200);
      expect((await res.json()).keys[0].plan).toBe('enterprise');
    } finally {
      await second.close();
    }
  });

  it('creates users and keys from the CLI', async () => {
    const store = await sharedStore();
    const run = promisify(execFile);
    const { stdout } = await run(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'create', '--plan', 'pro', '--name', 'ci'], {
      env: { ...process.env, ...store.env },
    });
    const created = JSON.parse(stdout);
    expect(created.key).toMatch(/^gc_[0-9a-f]{32}$/);
    const app = await startApp(loadConfig({}, { host: '127.0.0.1', port: 0, poolThreads: 1, bootstrapOwner: false, ...store }), createLogger(false));
    try {
      const res = await fetch(`http://127.0.0.1:${app.port}/v1/keys`, { headers: { authorization: `Bearer ${created.key}` } });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.keys).toHaveLength(1);
      expect(body.keys[0]).toMatchObject({ key_id: created.key_id, plan: 'pro', name: 'ci' });
      expect(JSON.stringify(body)).not.toContain(created.key);
    } finally {
      await app.close();
    }
  });

  it('drains an in-flight request on SIGTERM, then exits 0 and stops accepting', async () => {
    const store = await sharedStore();
    const proc = await spawnUntil(join(root, 'dist/src/main.js'), { ...store.env, PORT: '0', HOST: '127.0.0.1' }, /(gc_[0-9a-f]{32})/);
    const port = Number(/"port":(\d+)/.exec(proc.output())![1]);
    const key = proc.match[1]!;
    const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
    const payload = Buffer.from(JSON.stringify({ text: sampleDocument().repeat(20), fidelity: 'balanced' }));
    // Half the body first: the request is in flight once the server holds those bytes (its /metrics says so).
    const req = httpRequest(`http://127.0.0.1:${port}/v1/compress`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(payload.length) },
    });
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
    });
    req.write(payload.subarray(0, payload.length >> 1));
    await waitFor('the server to hold the first half of the body', async () =>
      metricValue(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), 'gc_http_request_body_bytes') > 0,
    );
    proc.child.kill('SIGTERM');
    req.end(payload.subarray(payload.length >> 1));
    const { status, body } = await inFlight;
    expect(status, `${body.slice(0, 300)}\n${proc.output().slice(-1500)}`).toBe(200);
    expect(JSON.parse(body).compressed_tokens).toBeGreaterThan(0);
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    await stop(proc.child);
  });
});

describe(`durability (${DB_KIND})`, () => {
  it('every compression answered 200 keeps its usage event through kill -9', async () => {
    const store = await sharedStore();
    const proc = await spawnUntil(join(root, 'dist/src/main.js'), { ...store.env, PORT: '0', HOST: '127.0.0.1' }, /(gc_[0-9a-f]{32})/);
    const port = Number(/"port":(\d+)/.exec(proc.output())![1]);
    const key = proc.match[1]!;
    const exited = new Promise<void>((resolve) => proc.child.once('exit', () => resolve()));
    let acknowledged = 0;
    let tenAnswered!: () => void;
    const ten = new Promise<void>((r) => (tenAnswered = r));
    // Traffic in flight when the process dies (killed right after the 10th answer): count only what was answered 200.
    const traffic = Array.from({ length: 40 }, (_, i) =>
      fetch(`http://127.0.0.1:${port}/v1/compress`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: `${sampleDocument()} Call ${i}.`, fidelity: 'outline' }),
      }).then((res) => {
        if (res.status === 200 && ++acknowledged === 10) tenAnswered();
      }, () => undefined),
    );
    await ten;
    proc.child.kill('SIGKILL');
    await Promise.all(traffic);
    await exited;
    expect(acknowledged).toBeGreaterThanOrEqual(10);
    // On PGlite, answered calls' events may still be in the usage journal: the next start writes them
    // before it listens (docs/reliability.md).
    const journal = join(store.dataDir, 'usage-journal');
    const leftover = existsSync(journal) ? readdirSync(journal).length : 0;
    if (process.env.TEST_LOGS) console.log(`acknowledged ${acknowledged} of 40; ${leftover} journal segments left`);
    const again = await spawnUntil(join(root, 'dist/src/main.js'), { ...store.env, PORT: '0', HOST: '127.0.0.1' }, /"msg":"listening"/);
    await stop(again.child);
    if (existsSync(journal)) expect(readdirSync(journal)).toEqual([]);
    const db = await openStore({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
    try {
      const [row] = await db.query<{ n: number }>("select count(*)::int as n from usage_events where method = 'REST'");
      expect(row!.n).toBeGreaterThanOrEqual(acknowledged);
    } finally {
      await db.close();
    }
  });
});

describe(`acknowledged writes through kill -9 (${DB_KIND})`, () => {
  it('every acknowledged Knowledge Hub ingest, document and lead (with its outbox message) survives kill -9; ingests left unfinished complete after restart', async () => {
    const store = await sharedStore();
    const env = { ...store.env, PORT: '0', HOST: '127.0.0.1' };
    const proc = await spawnUntil(join(root, 'dist/src/main.js'), env, /(gc_[0-9a-f]{32})/);
    const base = `http://127.0.0.1:${Number(/"port":(\d+)/.exec(proc.output())![1])}`;
    const key = proc.match[1]!;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = (path: string, body: unknown) => fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
    const project = await (await post('/v1/projects', { name: 'durability' })).json();
    const mcp = await connectMcp(base, key);
    const exited = new Promise<void>((resolve) => proc.child.once('exit', () => resolve()));

    const acked = { items: [] as string[], leads: [] as string[], documents: [] as string[] };
    let enough!: () => void;
    const enoughAnswered = new Promise<void>((r) => (enough = r));
    const ack = (list: string[], id: string | undefined) => {
      if (!id) return;
      list.push(id);
      // Killed once every kind has answers, while the rest is still in flight.
      if (acked.items.length >= 4 && acked.leads.length >= 4 && acked.documents.length >= 2) enough();
    };
    // Three senders per kind, each sending again as soon as it is answered, until the process dies.
    let alive = true;
    const sender = (send: (n: number) => Promise<void>) =>
      (async () => {
        // Paced and capped, so the restarted process has a bounded number of ingests to finish.
        for (let n = 0; alive && n < 25; n++) {
          await send(n).catch(() => undefined);
          await new Promise((r) => setTimeout(r, 30));
        }
      })();
    const traffic = Array.from({ length: 3 }, (_, s) => [
      sender((n) =>
        post(`/v1/projects/${project.project_id}/knowledge/items`, { name: `doc ${s}-${n}`, content: `${sampleDocument()} Item ${s}-${n}.` }).then(
          async (res) => void (res.status === 201 && ack(acked.items, (await res.json()).item_id)),
        ),
      ),
      sender((n) =>
        post('/v1/leads', { email: `lead${s}-${n}@example.com`, company: `Company ${s}-${n}` }).then(
          async (res) => void (res.status === 201 && ack(acked.leads, (await res.json()).id)),
        ),
      ),
      sender((n) =>
        call(mcp, 'ingest_context', { text: `# Notes ${s}-${n}\n\n${sampleDocument()}`, name: `notes-${s}-${n}` }).then(
          (r) => void (!r.isError && ack(acked.documents, r.data.file_id)),
        ),
      ),
    ]).flat();
    await enoughAnswered;
    proc.child.kill('SIGKILL');
    alive = false;
    await Promise.all(traffic);
    await exited;
    await mcp.close().catch(() => undefined);
    const total = acked.items.length + acked.leads.length + acked.documents.length;
    expect(total).toBeGreaterThanOrEqual(10);
    if (process.env.TEST_LOGS) console.log('acknowledged before the kill', { items: acked.items.length, leads: acked.leads.length, documents: acked.documents.length });

    const db = await openStore({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
    try {
      const ids = (rows: { id: string }[]) => new Set(rows.map((r) => r.id));
      const items = ids(await db.query<{ id: string }>('select id from kb_items where current_version_id is not null and deleted_at is null'));
      expect(acked.items.filter((id) => !items.has(id))).toEqual([]);
      const leads = ids(await db.query<{ id: string }>('select id from leads'));
      expect(acked.leads.filter((id) => !leads.has(id))).toEqual([]);
      // The notification was queued in the lead's own transaction: every stored lead has its message.
      const texts = (await db.query<{ text: string }>("select payload->>'text' as text from outbox where kind = 'email'")).map((r) => r.text);
      expect(acked.leads.filter((id) => !texts.some((t) => t.startsWith(`New lead ${id}`)))).toEqual([]);
      const documents = ids(await db.query<{ id: string }>('select id from documents'));
      expect(acked.documents.filter((id) => !documents.has(id))).toEqual([]);
    } finally {
      await db.close();
    }

    // A new process resumes the ingests the killed one left pending or indexing: each acknowledged item becomes ready.
    const again = await spawnUntil(join(root, 'dist/src/main.js'), env, /"msg":"listening".*"port":(\d+)/);
    cleanup.push(() => stop(again.child));
    const againBase = `http://127.0.0.1:${again.match[1]}`;
    let statuses: Record<string, string> = {};
    await waitFor(
      () => `every acknowledged item ready: ${JSON.stringify(acked.items.map((id) => statuses[id]))}`,
      async () => {
        const body = await (await fetch(`${againBase}/v1/projects/${project.project_id}/knowledge/items?limit=100`, { headers })).json();
        statuses = Object.fromEntries((body.items ?? []).map((i: { item_id: string; status: string }) => [i.item_id, i.status]));
        return acked.items.every((id) => statuses[id] === 'ready');
      },
      { timeoutMs: 90_000, everyMs: 250 },
    );
  }, 150_000);
});

describe(`pool and transport (${DB_KIND})`, () => {
  it('answers 503 with Retry-After when the pool queue is full, and keeps serving', async () => {
    const server = await startTestServer({ poolThreads: 1, poolMaxQueue: 1 });
    cleanup.push(() => server.close());
    const text = sampleDocument().repeat(30);
    const results = await Promise.all(
      Array.from({ length: 12 }, () => server.request('POST', '/v1/compress', { body: { text, fidelity: 'outline' } })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses).toContain(503);
    expect(statuses).toContain(200);
    const busy = results.find((r) => r.status === 503)!;
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.json.detail).toMatch(/pool/i);
    const after = await server.request('POST', '/v1/compress', { body: { text: 'Short text. Still works.' } });
    expect(after.status).toBe(200);
  });

  it('shutdown stops compute still running at the end of the grace period instead of waiting for it', async () => {
    const server = await startTestServer({ poolThreads: 1, shutdownGraceMs: 300 });
    const stuck = runTask(server.app.services, 'ping', { holdMs: 30_000 }, { deadlineMs: 60_000 }).then(() => 'finished', () => 'stopped');
    await waitFor('the task running on the pool thread', () => server.app.services.pool.stats().running === 1);
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(await stuck).toBe('stopped');
  });

  it('a task that throws in a worker fails only its own call', async () => {
    const server = await startTestServer();
    cleanup.push(() => server.close());
    const bad = server.app.services.pool.run('compressCode', { code: 'MZ\u0000\u0000binary', fidelity: 'balanced' });
    const good = server.request('POST', '/v1/compress', { body: { text: sampleDocument() } });
    await expect(bad).rejects.toMatchObject({ name: 'CodeInputError' });
    expect((await good).status).toBe(200);
    expect((await server.request('GET', '/health/readiness', { key: null })).status).toBe(200);
  });

  it('survives clients that abort mid-request', async () => {
    const server = await startTestServer();
    cleanup.push(() => server.close());
    const text = sampleDocument().repeat(20);
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      const pending = fetch(server.url + '/v1/compress', {
        method: 'POST',
        signal: controller.signal,
        headers: { authorization: `Bearer ${server.ownerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text }),
      });
      setTimeout(() => controller.abort(), 5 * i);
      await pending.catch(() => undefined);
    }
    const res = await server.request('POST', '/v1/compress', { body: { text: sampleDocument() } });
    expect(res.status).toBe(200);
  });

  it('streams a multi-megabyte response intact under back-pressure', async () => {
    const server = await startTestServer();
    cleanup.push(() => server.close());
    const text = sampleDocument().repeat(300); // ~3 MB, returned verbatim by raw
    expect(text.length).toBeGreaterThan(2_500_000);
    const res = await server.request('POST', '/v1/compress', { body: { text, fidelity: 'raw' } });
    expect(res.status).toBe(200);
    expect(res.json.compressed_text).toBe(text);
  });
});
