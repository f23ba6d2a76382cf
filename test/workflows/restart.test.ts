// Runs are durable: the real process is killed (SIGKILL) while runs are in flight and queued; after a
// restart on the same store each one is resolved — resumed to success, or failed with a reason —
// and none stays running.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnUntil, stop } from '../../bench/lib/spawn.js';
import { packageRoot } from '../../src/lib/root.js';
import { LocalLlmServer } from '../../src/providers/llm/localServer.js';
import { openStore } from '../../src/store/index.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, freshDatabase, sampleDocument } from '../helpers/server.js';
import { waitForRun } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function start(env: Record<string, string>, ready: RegExp) {
  const proc = await spawnUntil(join(packageRoot(), 'dist/src/main.js'), env, ready);
  cleanup.push(async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) await stop(proc.child);
  });
  return { proc, url: `http://127.0.0.1:${/"port":(\d+)/.exec(proc.output())![1]}` };
}

describe(`runs survive a killed process (${DB_KIND})`, () => {
  it('kill -9 mid-run: after restart an interrupted provider call fails with its reason, a retryable one and a queued run complete', { timeout: 120_000 }, async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'gc-runs-'));
    cleanup.push(async () => {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    // The customer's own provider demands their key; the real process stores it sealed and sends it.
    const customerKey = `sk-proj-${randomBytes(24).toString('hex')}`;
    const own = new LocalLlmServer({ requiredKey: customerKey, recordKeys: true });
    await own.start();
    cleanup.push(() => own.stop());
    const env = {
      DATABASE_URL: db.databaseUrl ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RUN_LEASE_MS: '1500', RUN_POLL_MS: '100', RUN_CONCURRENCY: '2', POOL_THREADS: '1',
      PROVIDER_KEY_SECRET: randomBytes(32).toString('hex'), LLM_ALLOWED_HOSTS: new URL(own.url).host, LOG_REQUESTS: 'true',
    };
    const first = await start(env, /(gc_[0-9a-f]{32})/);
    const owner = /(gc_[0-9a-f]{32})/.exec(first.proc.output())![1]!;
    const rest = async (method: string, path: string, body: unknown) => {
      const res = await fetch(first.url + path, { method, headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return res.json() as Promise<any>;
    };
    const project = await rest('POST', '/v1/projects', { name: 'runs' });
    const key = (await rest('POST', '/v1/keys', { name: 'bound', project_id: project.project_id })).key;
    expect(key).toMatch(/^gc_/);

    let client = await connectMcp(first.url, key);
    const graph = (retry: boolean) => ({
      nodes: [
        { id: 'squeeze', type: 'compress', params: { text: sampleDocument(), fidelity: 'outline' } },
        { id: 'ask', type: 'llm', params: { prompt: 'Summarise this.', model: 'gc-local:delay=3000', retry_on_interrupt: retry } },
      ],
      edges: [{ from: 'squeeze', to: 'ask' }],
    });
    const wfA = (await call(client, 'gc_workflow_create', { name: 'not repeated', graph: graph(false) })).data.workflow_id;
    const wfB = (await call(client, 'gc_workflow_create', { name: 'repeated', graph: graph(true) })).data.workflow_id;
    const wfC = (await call(client, 'gc_workflow_create', { name: 'queued', graph: { nodes: [{ id: 'c', type: 'compress', params: { text: sampleDocument() } }] } })).data.workflow_id;
    const set = await call(client, 'gc_provider_set', { name: 'own', api: 'openai', base_url: own.openAiBaseUrl, api_key: customerKey, default_model: 'gc-local' });
    expect(set.data.has_key).toBe(true);
    const wfD = (await call(client, 'gc_workflow_create', { name: 'own provider', graph: { nodes: [{ id: 'o', type: 'llm', params: { provider: 'own', prompt: 'hello' } }] } })).data.workflow_id;
    expect((await waitForRun(client, (await call(client, 'gc_run_from_workflow', { workflow_id: wfD })).data.run_id)).status).toBe('succeeded');
    const runA = (await call(client, 'gc_run_from_workflow', { workflow_id: wfA })).data.run_id;
    const runB = (await call(client, 'gc_run_from_workflow', { workflow_id: wfB })).data.run_id;
    // Both provider calls in flight; the third run waits for a free slot (RUN_CONCURRENCY 2).
    await waitForRun(client, runA, 20_000, (s) => s.nodes[1].status === 'running');
    await waitForRun(client, runB, 20_000, (s) => s.nodes[1].status === 'running');
    const runC = (await call(client, 'gc_run_from_workflow', { workflow_id: wfC })).data.run_id;
    expect((await call(client, 'gc_run_status', { run_id: runC })).data.status).toBe('queued');
    await client.close();

    const exited = new Promise<void>((resolve) => first.proc.child.once('exit', () => resolve()));
    first.proc.child.kill('SIGKILL');
    await exited;

    const second = await start({ ...env, BOOTSTRAP_OWNER: 'false' }, /"port":(\d+)/);
    client = await connectMcp(second.url, key);
    const restartedAt = Date.now();
    try {
      const a = await waitForRun(client, runA, 30_000);
      expect(a.status).toBe('failed');
      expect(a.error).toMatch(/node ask \(llm\) was interrupted during its provider call; not repeated/);
      expect(a.attempts).toBe(2);
      expect(a.nodes.map((n: { status: string }) => n.status)).toEqual(['succeeded', 'failed']);
      expect(a.nodes[1].error).toMatch(/retry_on_interrupt/);

      const b = await waitForRun(client, runB, 30_000);
      expect(b.status, JSON.stringify(b)).toBe('succeeded');
      expect(b.attempts).toBe(2);
      expect(b.nodes[0].attempts).toBe(1); // the compress node that had finished is not run again
      expect(b.nodes[1]).toMatchObject({ status: 'succeeded', attempts: 2 });
      expect(b.nodes[1].tokens.output).toBeGreaterThan(0);
      expect(b.cost_micros).toBeGreaterThan(0);
      expect(b.provider_calls).toBe(2);

      const c = await waitForRun(client, runC, 30_000);
      expect(c.status).toBe('succeeded');
      console.log(`restart: all three runs resolved ${Date.now() - restartedAt} ms after the restarted process answered (lease 1,500 ms; the retried provider call takes 3,000 ms)`);
      expect(c.attempts).toBe(1);
      // Nothing is left running.
      expect((await call(client, 'gc_run_list', { status: 'running' })).data.runs).toEqual([]);
      expect(Date.now() - restartedAt).toBeLessThan(20_000);
      // The sealed key opens in the new process (same PROVIDER_KEY_SECRET).
      const d = await waitForRun(client, (await call(client, 'gc_run_from_workflow', { workflow_id: wfD })).data.run_id);
      expect(d.status, JSON.stringify(d)).toBe('succeeded');
    } finally {
      await client.close();
    }
    // A graceful stop hands the runs back and exits promptly.
    const stopping = Date.now();
    await stop(second.proc.child);
    expect(Date.now() - stopping).toBeLessThan(10_000);

    // The customer's key: sent to their provider, and in no log line of either process and no table.
    expect(own.keysSeen.has(customerKey)).toBe(true);
    const logs = first.proc.output() + second.proc.output();
    expect(logs).toContain('"msg":"request"');
    const store = await openStore({ databaseUrl: db.databaseUrl, dataDir });
    let dump = '';
    try {
      const tables = await store.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public'");
      for (const { table_name } of tables) {
        dump += (await store.query<{ row: string }>(`select row_to_json(t)::text as row from "${table_name}" t`)).map((r) => r.row).join('\n');
      }
    } finally {
      await store.close();
    }
    expect(dump).toContain('"key_sealed":"v1.');
    for (const piece of [customerKey, customerKey.slice(8, 40)]) {
      expect(logs).not.toContain(piece);
      expect(dump).not.toContain(piece);
    }
  });
});
