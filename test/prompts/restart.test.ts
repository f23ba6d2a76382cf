// Experiment runs are durable: the app stops mid-run, its lease is left as a dead process would leave
// it, and a new app on the same store claims the run once the lease lapses and finishes it without
// redoing the cells already scored.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/log.js';
import { openStore } from '../../src/store/index.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, freshDatabase } from '../helpers/server.js';
import { makeTenant } from '../kb/helpers.js';
import { waitFor } from '../helpers/waitFor.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
});

describe(`experiment runs survive a restart (${DB_KIND})`, () => {
  it('resumes at the first unscored cell after the lease of a stopped instance lapses', async () => {
    const database = await freshDatabase();
    cleanup.push(() => database.drop());
    // PGlite must live on disk to outlast the app.
    const dataDir = database.databaseUrl ? database.dataDir : mkdtempSync(join(tmpdir(), 'gc-experiments-'));
    if (!database.databaseUrl) cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const base = loadConfig({});
    const config = loadConfig({}, {
      host: '127.0.0.1', port: 0, poolThreads: 2, databaseUrl: database.databaseUrl, dataDir, shutdownGraceMs: 2000,
      runs: { ...base.runs, pollMs: 100, leaseMs: 1500 },
    });
    let app: RunningApp = await startApp(config, createLogger(false));
    cleanup.push(() => app.close());
    const tenant = await makeTenant({ app } as never);
    let client = await connectMcp(`http://127.0.0.1:${app.port}`, tenant.keyA);
    const t = (await call(client, 'create_prompt_template', { name: 'slow', template: 'Tell me about {{topic}}' })).data;
    const d = (await call(client, 'create_dataset', { name: 'six', cases: ['a', 'b', 'c', 'd', 'e', 'f'].map((topic) => ({ variables: { topic }, contains: [topic] })) })).data;
    const run = (await call(client, 'run_experiment', { template_id: t.template_id, dataset_id: d.dataset_id, models: ['gc-local:delay=500'] })).data;
    expect(run.run_id).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor('two cells done', async () => (await call(client, 'get_experiment_run', { run_id: run.run_id, include_cells: false })).data.progress.done >= 2, { everyMs: 50 });
    await client.close();
    await app.close();

    // What a killed process leaves: the run running, held by an instance that will never renew it.
    const store = await openStore(config);
    const [left] = await store.query<{ status: string; done_cells: number; attempts: number }>('select status, done_cells, attempts from experiment_runs where id = $1', [run.run_id]);
    expect(left!.status).toBe('running');
    expect(left!.done_cells).toBeGreaterThanOrEqual(2);
    expect(left!.done_cells).toBeLessThan(6);
    await store.query(`update experiment_runs set lease_owner = 'dead-instance', lease_expires_at = now() + interval '1 second' where id = $1`, [run.run_id]);
    const before = await store.query<{ ordinal: number; output: string; finished_at: Date }>(
      `select ordinal, output, finished_at from experiment_results where run_id = $1 and status = 'succeeded' order by ordinal`,
      [run.run_id],
    );
    await store.close();

    app = await startApp(config, createLogger(false));
    client = await connectMcp(`http://127.0.0.1:${app.port}`, tenant.keyA);
    const r = await waitFor('the run finished after the restart', async () => {
      const s = (await call(client, 'get_experiment_run', { run_id: run.run_id })).data;
      return (s.status === 'succeeded' || s.status === 'failed') && s;
    }, { timeoutMs: 30_000, everyMs: 50 });
    await client.close();
    expect(r.status).toBe('succeeded');
    expect(r.attempts).toBe(2);
    expect(r.progress).toEqual({ done: 6, total: 6 });
    for (const c of r.cells) expect(c.scores.contains).toBe(1);
    // The cells scored before the restart were not run again.
    for (const b of before) expect(r.cells[b.ordinal].output).toBe(b.output);
    const store2 = await openStore(config);
    const after = await store2.query<{ ordinal: number; finished_at: Date }>(`select ordinal, finished_at from experiment_results where run_id = $1 order by ordinal`, [run.run_id]);
    await store2.close();
    for (const b of before) expect(new Date(after[b.ordinal]!.finished_at).getTime()).toBe(new Date(b.finished_at).getTime());
  }, 120_000);
});
