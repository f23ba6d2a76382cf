// workers/index.ts names each group's tasks so a thread imports a group only when one of its tasks runs;
// the names must be exactly what each module exports.
import { describe, expect, it } from 'vitest';
import run, { TASK_GROUPS } from '../../workers/index.js';

describe('task groups', () => {
  it.each(Object.keys(TASK_GROUPS))('%s lists exactly the tasks its module exports', async (group) => {
    const { tasks, load } = TASK_GROUPS[group]!;
    expect(Object.keys(await load()).sort()).toEqual([...tasks].sort());
  });

  it('no task name is served by two groups', () => {
    const names = Object.values(TASK_GROUPS).flatMap((g) => g.tasks);
    expect(new Set(names).size).toBe(names.length);
  });

  it('runs a task of a group not yet loaded, and names an unknown task', async () => {
    expect(await run({ name: 'cacheHash', input: { text: 'hello world', model: null, prefixTokens: 1 } })).toMatchObject({ ok: true });
    expect(await run({ name: 'noSuchTask', input: {} })).toEqual({ ok: false, error: { name: 'UnknownTask', message: "unknown task 'noSuchTask'" } });
  });
});
