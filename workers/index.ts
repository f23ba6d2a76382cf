import { setPriority } from 'node:os';
import { threadId, workerData } from 'node:worker_threads';
import { aceTasks } from './ace/tasks.js';
import { cacheTasks } from './cache/tasks.js';
import { codeTasks } from './code/tasks.js';
import { codeIntelTasks } from './codeIntel/tasks.js';
import { detectTasks } from './detect/tasks.js';
import { docsTasks } from './docs/tasks.js';
import { embedTasks } from './embed/tasks.js';
import { evidenceTasks } from './evidence/tasks.js';
import { kbTasks } from './kb/tasks.js';
import { ingestTasks } from './ingest/tasks.js';
import { memoryTasks } from './memory/tasks.js';
import { planTasks } from './plans/tasks.js';
import { promptTasks } from './prompts/tasks.js';
import { textTasks } from './text/tasks.js';
import { toolTasks } from './tools/tasks.js';
import { skillTasks } from './skills/tasks.js';
import { webTasks } from './web/tasks.js';
import { countTokens, tokenizerFor } from './shared/tokens.js';

// On a machine with as many busy compute threads as cores, the event loop would wait for the scheduler
// (health checks and small requests queued behind long compressions); a higher nice value for the
// compute threads gives it a core first. Linux applies nice per thread, so this touches only this one.
const nice = (workerData as { nice?: number } | undefined)?.nice ?? 0;
if (nice > 0) {
  try {
    setPriority(0, nice);
  } catch {
    // Not permitted here (some sandboxes): run at the default priority.
  }
}

/** Every task the pool runs, by name. src/pool derives its typed API from this object's type. */
export const tasks = {
  ...textTasks,
  ...codeTasks,
  ...codeIntelTasks,
  ...detectTasks,
  ...toolTasks,
  ...embedTasks,
  ...kbTasks,
  ...ingestTasks,
  ...memoryTasks,
  ...aceTasks,
  ...planTasks,
  ...skillTasks,
  ...webTasks,
  ...docsTasks,
  ...promptTasks,
  ...cacheTasks,
  ...evidenceTasks,
  /** A round trip through a worker (warm-up, readiness); holdMs keeps the worker's slot that long (saturation and deadline tests). */
  ping: async (input?: { holdMs?: number }) => {
    if (input?.holdMs) await new Promise((r) => setTimeout(r, input.holdMs));
    return { thread: threadId, pid: process.pid };
  },
  countTokens: ({ text, model }: { text: string; model?: string | null }) => {
    const tokenizer = tokenizerFor(model);
    return { tokens: countTokens(text, tokenizer), tokenizer };
  },
};

export type TaskName = keyof typeof tasks;

export interface TaskEnvelope {
  name: string;
  input: unknown;
}

export type TaskOutcome = { ok: true; value: unknown } | { ok: false; error: { name: string; message: string; code?: string } };

/**
 * Piscina entry. Errors travel as data: structured cloning keeps only standard error names,
 * and routes map by name (CodeInputError -> 422, BlastRadiusInputError -> tool error).
 */
export default async function run({ name, input }: TaskEnvelope): Promise<TaskOutcome> {
  const task = (tasks as Record<string, (input: never) => unknown>)[name];
  if (!task) return { ok: false, error: { name: 'UnknownTask', message: `unknown task '${name}'` } };
  try {
    return { ok: true, value: await task(input as never) };
  } catch (err) {
    const e = err as Error & { code?: string };
    return { ok: false, error: { name: e?.name ?? 'Error', message: e?.message ?? String(err), code: e?.code } };
  }
}
