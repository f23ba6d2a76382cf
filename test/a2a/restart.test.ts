// A2A protocol tasks outlive the process: a real service process (dist/src/main.js) is killed with
// SIGKILL while a task is working; the next process on the same database answers the finished task
// as it was and the interrupted one as failed with a reason (never working forever). A graceful
// shutdown fails its unfinished tasks itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnUntil, stop } from '../../bench/lib/spawn.js';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { runTask } from '../../src/domain/compute.js';
import { createLogger } from '../../src/lib/log.js';
import { packageRoot } from '../../src/lib/root.js';
import { DB_KIND, freshDatabase, sampleDocument } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';
import { a2aClient, asTask, codebase, skillMessage, textMessage } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
});

const statusText = (t: { status?: { message?: { parts: { content?: { $case: string; value: unknown } }[] } } }) =>
  t.status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ') ?? '';

describe(`A2A tasks across restarts (${DB_KIND})`, () => {
  it('a task working when the process is killed is failed with a reason after restart; a finished one is kept', async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'gc-a2a-'));
    cleanup.push(async () => {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const env = { DATABASE_URL: db.databaseUrl ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', POOL_THREADS: '1' };
    const proc = await spawnUntil(join(packageRoot(), 'dist/src/main.js'), env, /"port":(\d+)[\s\S]*?(gc_[0-9a-f]{32})/);
    cleanup.push(async () => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) await stop(proc.child);
    });
    const key = proc.match[2]!;
    const first = await a2aClient(`http://127.0.0.1:${proc.match[1]}`, key);
    const done = asTask(await first.sendMessage(textMessage(sampleDocument())));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    // A long skill, streamed; the process dies as soon as the task reports working.
    const exited = new Promise<void>((resolve) => proc.child.once('exit', () => resolve()));
    let taskId = '';
    try {
      for await (const e of first.sendMessageStream(skillMessage('compress_codebase', { files: codebase(400), query: 'widget' }))) {
        if (e.payload?.$case === 'task') taskId = e.payload.value.id;
        if (e.payload?.$case === 'statusUpdate' && e.payload.value.status?.state === TaskState.TASK_STATE_WORKING) {
          proc.child.kill('SIGKILL');
          break;
        }
      }
    } catch {
      // the stream breaks with the process
    }
    await exited;
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);

    const started = performance.now();
    const app = await startApp(loadConfig({}, { host: '127.0.0.1', port: 0, poolThreads: 1, databaseUrl: db.databaseUrl, dataDir }), createLogger(false));
    let closed = false;
    cleanup.push(async () => {
      if (!closed) await app.close();
    });
    const second = await a2aClient(`http://127.0.0.1:${app.port}`, key);
    // PGlite belongs to one process: resolved at start. PostgreSQL may be shared: resolved once the dead process's lease lapses.
    const interrupted = await waitFor('the interrupted task to be failed', async () => {
      const seen = await second.getTask({ id: taskId, tenant: '' });
      if (seen.status?.state === TaskState.TASK_STATE_FAILED) return seen;
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(seen.status?.state);
      return null;
    }, { timeoutMs: 30_000, everyMs: 250 });
    console.log(`[a2a] interrupted task resolved ${(performance.now() - started).toFixed(0)} ms after the restart began (${DB_KIND})`);
    expect(interrupted.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(statusText(interrupted)).toContain('stopped before it finished');
    const kept = await second.getTask({ id: done.id, tenant: '' });
    expect(kept.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(kept.artifacts[0]!.parts[0]!.content).toEqual(done.artifacts[0]!.parts[0]!.content);

    // A graceful shutdown does not leave its own unfinished task working either.
    const hold = runTask(app.services, 'ping', { holdMs: 1500 }, { owner: 'someone-else' });
    const polling = await a2aClient(`http://127.0.0.1:${app.port}`, key, undefined, true);
    const pending = asTask(await polling.sendMessage(skillMessage('compress_codebase', { files: codebase(8) })));
    // Working (behind the held pool thread) when the shutdown starts.
    await waitFor('the pending task to be working', async () => (await polling.getTask({ id: pending.id, tenant: '' })).status?.state === TaskState.TASK_STATE_WORKING);
    closed = true;
    await Promise.all([app.close(), hold.catch(() => undefined)]);
    const third = await startApp(loadConfig({}, { host: '127.0.0.1', port: 0, poolThreads: 1, databaseUrl: db.databaseUrl, dataDir }), createLogger(false));
    try {
      const after = await (await a2aClient(`http://127.0.0.1:${third.port}`, key)).getTask({ id: pending.id, tenant: '' });
      expect(after.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(statusText(after)).toContain('shut down');
    } finally {
      await third.close();
    }
  }, 120_000);
});
