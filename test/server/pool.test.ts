// The compute pool's bounds: a deadline on every task (the worker is replaced), a bounded queue, and
// waiting work served fairly across keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTask } from '../../src/domain/compute.js';
import { DomainError } from '../../src/domain/errors.js';
import { httpReplyOf } from '../../src/http/errors.js';
import { toolErrorOf } from '../../src/mcp/call.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ poolThreads: 1, poolMaxQueue: 8, poolTaskDeadlineMs: 400 });
});
afterAll(async () => {
  await server?.close();
});

describe(`compute pool bounds (${DB_KIND})`, () => {
  it('a task past its deadline is a timeout (REST 504, MCP timeout), and a fresh worker takes the next task', async () => {
    const services = server.app.services;
    const before = await runTask(services, 'ping', undefined);
    const started = performance.now();
    const err = await runTask(services, 'ping', { holdMs: 5000 }).then(() => null, (e) => e);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(err).toBeInstanceOf(DomainError);
    expect(err.kind).toBe('timeout');
    expect(httpReplyOf(err)!.status).toBe(504);
    expect(toolErrorOf(err).error).toBe('timeout');
    // The replacement worker loads its grammars and models first: that start-up is not the task's fault.
    const after = await runTask(services, 'ping', undefined, { deadlineMs: 60_000 });
    expect(after.thread).not.toBe(before.thread); // the stuck worker was terminated and replaced
    expect(await runTask(services, 'countTokens', { text: 'still serving' }, { deadlineMs: 60_000 })).toMatchObject({ tokens: 2 });
  });

  it('waiting work is served round-robin across keys: one key’s burst does not starve another', async () => {
    const services = server.app.services;
    const finished: string[] = [];
    const task = (owner: string, i: number) =>
      runTask(services, 'ping', { holdMs: 60 }, { owner }).then(() => finished.push(`${owner}${i}`));
    // One thread, 8 waiting places: a key may hold half of them, so a5 is refused while b still gets in.
    const burst = Array.from({ length: 6 }, (_, i) => task('a', i).then(() => 'ok', (e) => e.name));
    const other = task('b', 0);
    const outcomes = await Promise.all([...burst, other]);
    expect(outcomes.slice(0, 6)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'DomainError']);
    // a0 holds the thread; b0 is served right after it, not after the rest of the burst.
    expect(finished.indexOf('b0')).toBeLessThanOrEqual(2);
  });

  it('past the queue bound the pool is unavailable with a retry time', async () => {
    const services = server.app.services;
    const hold = Array.from({ length: 9 }, (_, i) => runTask(services, 'ping', { holdMs: 150 }, { owner: `c${i}` }).then(() => 'ok', (e) => e));
    const extra = await runTask(services, 'ping', undefined, { owner: 'd' }).then(() => null, (e) => e);
    expect(extra).toBeInstanceOf(DomainError);
    expect(extra.kind).toBe('unavailable');
    expect(httpReplyOf(extra)!.headers['retry-after']).toBeDefined();
    expect(await Promise.all(hold)).toEqual(Array(9).fill('ok'));
  });
});
