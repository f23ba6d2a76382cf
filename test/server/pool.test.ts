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

  it('a caller that goes away: a task that ends within the grace keeps its thread; a longer one loses it after the grace', async () => {
    const services = server.app.services;
    const before = await runTask(services, 'ping', undefined);
    const quick = new AbortController();
    const short = runTask(services, 'ping', { holdMs: 80 }, { signal: quick.signal }).then(() => null, (e) => e);
    await new Promise((r) => setTimeout(r, 20));
    quick.abort(new Error('client went away'));
    // The caller sees its own reason, not a result, once the task has finished.
    expect((await short)?.message).toBe('client went away');
    expect((await runTask(services, 'ping', undefined)).thread).toBe(before.thread);
    const slow = new AbortController();
    const started = performance.now();
    const long = runTask(services, 'ping', { holdMs: 350 }, { signal: slow.signal, deadlineMs: 10_000 }).then(() => null, (e) => e);
    await new Promise((r) => setTimeout(r, 20));
    slow.abort(new Error('cancelled'));
    expect((await long)?.message).toBe('cancelled');
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(20 + ABANDON_GRACE_MS - 5);
    expect(waited).toBeLessThan(350);
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
    // A server of its own with the default deadline: under a loaded CI machine an admitted 170 KB
    // compression can pass this file's 400 ms deadline, and a 504 is not what this test is about.
    const roomy = await startTestServer({ poolThreads: 1, poolMaxQueue: 8 });
    try {
      const b = await makeUser(roomy, 'pro');
      const text = 'Bodies refused at the door are never parsed, so a burst cannot stall the event loop. '.repeat(2000);
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => roomy.request('POST', '/v1/compress', { key: b.key, body: { text: `${i} ${text}`, fidelity: 'balanced' } })),
      );
      const ok = answers.filter((r) => r.status === 200).length;
      const refused = answers.filter((r) => r.status === 503 && r.headers.get('retry-after'));
      expect(ok + refused.length, JSON.stringify(answers.map((r) => [r.status, r.text.slice(0, 120)]))).toBe(24);
      // Refused unread: a large unread body closes the connection; a body read then refused by the pool would not.
      expect(refused.map((r) => r.headers.get('connection'))).toEqual(refused.map(() => 'close'));
      // Five places for this key; a place freed while the burst is still arriving may admit one more.
      expect(ok).toBeGreaterThanOrEqual(1);
      expect(ok).toBeLessThan(12);
      expect(roomy.app.services.pool.stats().admitted).toBe(0);
    } finally {
      await roomy.close();
    }
  });
});

