// The compute pool's bounds: a deadline on every task (the worker is replaced), a bounded queue, and
// waiting work served fairly across keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTask } from '../../src/domain/compute.js';
import { ABANDON_GRACE_MS } from '../../src/pool/pool.js';
import { DomainError } from '../../src/domain/errors.js';
import { httpReplyOf } from '../../src/http/errors.js';
import { toolErrorOf } from '../../src/mcp/call.js';
import { makeUser } from '../accounts/helpers.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
/** A hold no test outlives: such a task ends only when the pool stops it (its deadline, or the grace after an abort). */
const FOREVER_MS = 10 * 60_000;

beforeAll(async () => {
  // The default deadline: a task that must time out says so with its own deadlineMs, so a slow machine
  // cannot turn an ordinary task into a timeout.
  server = await startTestServer({ poolThreads: 1, poolMaxQueue: 8 });
});
afterAll(async () => {
  await server?.close();
});

describe(`compute pool bounds (${DB_KIND})`, () => {
  it('a task past its deadline is a timeout (REST 504, MCP timeout), and a fresh worker takes the next task', async () => {
    const services = server.app.services;
    const before = await runTask(services, 'ping', undefined);
    // The task would hold its thread past the test's own timeout: only the deadline can end it.
    const err = await runTask(services, 'ping', { holdMs: FOREVER_MS }, { deadlineMs: 400 }).then(() => null, (e) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err.kind).toBe('timeout');
    expect(httpReplyOf(err)!.status).toBe(504);
    expect(toolErrorOf(err).error).toBe('timeout');
    // The replacement worker loads its grammars and models first: that start-up is not the task's fault.
    const after = await runTask(services, 'ping', undefined, { deadlineMs: 60_000 });
    expect(after.thread).not.toBe(before.thread); // the stuck worker was terminated and replaced
    expect(await runTask(services, 'countTokens', { text: 'still serving' }, { deadlineMs: 60_000 })).toMatchObject({ tokens: 2 });
  });

  it('a caller that goes away: a task that ends within the grace keeps its thread; a longer one loses it after the grace', async () => {
    const services = server.app.services;
    const before = await runTask(services, 'ping', undefined);
    // run() hands a task to its thread synchronously when one is free: the aborts below come while it runs.
    const quick = new AbortController();
    const short = runTask(services, 'ping', { holdMs: 20 }, { signal: quick.signal }).then(() => null, (e) => e);
    expect(services.pool.stats().running).toBe(1);
    quick.abort(new Error('client went away'));
    // The caller sees its own reason, not a result, once the task has finished.
    expect((await short)?.message).toBe('client went away');
    expect((await runTask(services, 'ping', undefined)).thread).toBe(before.thread);
    // A task that would never end by itself: the caller's abort, after the grace, is what ends it.
    const slow = new AbortController();
    const long = runTask(services, 'ping', { holdMs: FOREVER_MS }, { signal: slow.signal }).then(() => null, (e) => e);
    expect(services.pool.stats().running).toBe(1);
    const aborted = performance.now();
    slow.abort(new Error('cancelled'));
    expect((await long)?.message).toBe('cancelled');
    // Not at once: the task had its grace first (a lower bound, which a slow machine only makes longer).
    expect(performance.now() - aborted).toBeGreaterThanOrEqual(ABANDON_GRACE_MS - 5);
    const after = await runTask(services, 'ping', undefined, { deadlineMs: 60_000 });
    expect(after.thread).not.toBe(before.thread);
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

  it('the door counts admissions: past a key’s share a compression is refused unread, another key still gets in, and places come back', async () => {
    const pool = server.app.services.pool;
    const a = await makeUser(server, 'pro');
    const b = await makeUser(server, 'pro');
    // One thread and a share of four waiting places: a key may hold five admissions at once.
    const held = Array.from({ length: 5 }, () => pool.admit(a.keyId));
    expect(held.every((release) => typeof release === 'function')).toBe(true);
    expect(pool.admit(a.keyId)).toBeNull();
    const body = { text: 'The pool admits a bounded number of compressions per key. '.repeat(50), fidelity: 'balanced' };
    const refused = await server.request('POST', '/v1/compress', { key: a.key, body });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const other = await server.request('POST', '/v1/compress', { key: b.key, body });
    expect(other.status).toBe(200);
    held.forEach((release) => release!());
    held[0]!(); // releasing twice gives nothing back twice
    expect(pool.stats().admitted).toBe(0);
    const again = await server.request('POST', '/v1/compress', { key: a.key, body });
    expect(again.status).toBe(200);
    expect(pool.stats().admitted).toBe(0);
  });

  it('a burst arriving at once is read only up to the door’s count: the rest are refused before their bodies are parsed', async () => {
    const b = await makeUser(server, 'pro');
    const text = 'Bodies refused at the door are never parsed, so a burst cannot stall the event loop. '.repeat(2000);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => server.request('POST', '/v1/compress', { key: b.key, body: { text: `${i} ${text}`, fidelity: 'balanced' } })),
    );
    const ok = answers.filter((r) => r.status === 200).length;
    const refused = answers.filter((r) => r.status === 503 && r.headers.get('retry-after'));
    expect(ok + refused.length, JSON.stringify(answers.map((r) => [r.status, r.text.slice(0, 120)]))).toBe(24);
    // Refused unread: a large unread body closes the connection; a body read then refused by the pool would not.
    expect(refused.map((r) => r.headers.get('connection'))).toEqual(refused.map(() => 'close'));
    // Five places for this key; a place freed while the burst is still arriving may admit one more.
    expect(ok).toBeGreaterThanOrEqual(1);
    expect(ok).toBeLessThan(12);
    expect(server.app.services.pool.stats().admitted).toBe(0);
  });
});

