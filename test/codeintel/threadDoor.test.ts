// The index threads' door (src/domain/compute.ts runOnThread + src/pool/threadDoor.ts) on the real
// code-index thread (src/pool/threadClient.ts): a bounded backlog answers `unavailable`, a deadline
// `timeout`, and an aborted caller is answered at once while its request still counts until the thread answers.
import { afterAll, describe, expect, it } from 'vitest';
import { CodeIndexClient } from '../../src/codeIntel/client.js';
import { runOnThread } from '../../src/domain/compute.js';
import { DomainError } from '../../src/domain/errors.js';
import { ThreadDoor } from '../../src/pool/threadDoor.js';

const client = new CodeIndexClient();
afterAll(() => client.close());

/** A request the test decides when to answer, standing in for a long query ahead in the thread. */
function held<T>(value: T) {
  let release!: () => void;
  const answered = new Promise<T>((resolve) => (release = () => resolve(value)));
  return { answered, release };
}

describe('the index thread door', () => {
  it('passes a query through to the thread and back', async () => {
    const door = new ThreadDoor('code index thread', { maxInFlight: 4, deadlineMs: 60_000 });
    expect(await runOnThread(door, () => client.stats())).toEqual({ projects: 0, files: 0 });
    expect(door.size).toBe(0);
  });

  it('refuses past its backlog bound with unavailable (503) and a retry hint', async () => {
    const door = new ThreadDoor('code index thread', { maxInFlight: 1, deadlineMs: 60_000 });
    const first = held({ projects: 0, files: 0 });
    const running = runOnThread(door, () => first.answered);
    const refused = await runOnThread(door, () => client.stats()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('unavailable');
    expect((refused as DomainError).retryAfter).toBe(1);
    first.release();
    await running;
    expect(await runOnThread(door, () => client.stats())).toEqual({ projects: 0, files: 0 });
  });

  it('answers a caller past its deadline with timeout', async () => {
    const door = new ThreadDoor('code index thread', { maxInFlight: 2, deadlineMs: 60_000 });
    const slow = held('late');
    const err = await runOnThread(door, () => slow.answered, { deadlineMs: 5 }).catch((e: unknown) => e);
    expect((err as DomainError).code).toBe('timeout');
    expect((err as DomainError).message).toBe('code index thread did not answer within 5 ms');
    slow.release();
  });

  it('answers an aborted caller at once; its request holds its place until the thread answers', async () => {
    const door = new ThreadDoor('code index thread', { maxInFlight: 1, deadlineMs: 60_000 });
    const slow = held('late');
    const caller = new AbortController();
    const pending = runOnThread(door, () => slow.answered, { signal: caller.signal });
    caller.abort(new Error('client went away'));
    await expect(pending).rejects.toThrow('client went away');
    expect(door.size).toBe(1);
    slow.release();
    await slow.answered;
    await Promise.resolve();
    expect(door.size).toBe(0);
  });
});
