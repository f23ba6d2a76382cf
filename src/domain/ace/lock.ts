// Deltas of one playbook run one at a time in this process (a delta is computed against the playbook
// as it is, then written under a version check). Across processes the version check alone decides:
// the loser computes again.
const tails = new Map<string, Promise<void>>();

export async function withPlaybookLock<T>(playbookId: string, fn: () => Promise<T>): Promise<T> {
  const prev = tails.get(playbookId) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => (release = r));
  const tail = prev.then(() => mine);
  tails.set(playbookId, tail);
  await prev;
  try {
    return await fn();
  } finally {
    release();
    if (tails.get(playbookId) === tail) tails.delete(playbookId);
  }
}

/** A short random pause before computing a delta again (another process wrote first). */
export const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** attempt));
