import { setPriority } from 'node:os';
import { threadId, workerData } from 'node:worker_threads';
import type { aceTasks } from './ace/tasks.js';
import type { cacheTasks } from './cache/tasks.js';
import type { codeTasks } from './code/tasks.js';
import type { codeIntelTasks } from './codeIntel/tasks.js';
import type { detectTasks } from './detect/tasks.js';
import type { docsTasks } from './docs/tasks.js';
import type { embedTasks } from './embed/tasks.js';
import type { evidenceTasks } from './evidence/tasks.js';
import type { kbTasks } from './kb/tasks.js';
import type { ingestTasks } from './ingest/tasks.js';
import type { memoryTasks } from './memory/tasks.js';
import type { planTasks } from './plans/tasks.js';
import type { promptTasks } from './prompts/tasks.js';
import type { textTasks } from './text/tasks.js';
import type { toolTasks } from './tools/tasks.js';
import type { skillTasks } from './skills/tasks.js';
import type { webTasks } from './web/tasks.js';
import { countTokens, tokenizerFor } from './shared/tokens.js';
import { useTokenTables } from './shared/tokenTables.js';
import { taskFailure, type TaskFailure } from './shared/taskFailure.js';

// On a machine with as many busy compute threads as cores, the event loop would wait for the scheduler
// (health checks and small requests queued behind long compressions); a higher nice value for the
// compute threads gives it a core first. Linux applies nice per thread, so this touches only this one.
const { nice = 0, tokenTables } = (workerData ?? {}) as { nice?: number; tokenTables?: Parameters<typeof useTokenTables>[0] };
useTokenTables(tokenTables);
if (nice > 0) {
  try {
    setPriority(0, nice);
  } catch {
    // Not permitted here (some sandboxes): run at the default priority.
  }
}

type TaskFn = (input: never) => unknown;

/**
 * Each group of tasks, by the names it serves, and its module, imported the first time one of its tasks
 * runs in this thread: a thread that never fetches a page never loads the HTML parsers (docs/resident-memory.md).
 * test/core/task-groups.test.ts checks these names against the modules.
 */
export const TASK_GROUPS: Record<string, { tasks: readonly string[]; load: () => Promise<Record<string, TaskFn>> }> = {
  text: { tasks: ['compress', 'compressEach', 'recommend', 'explainCompression'], load: async () => (await import('./text/tasks.js')).textTasks },
  code: { tasks: ['compressCode', 'analyzeFiles', 'structural'], load: async () => (await import('./code/tasks.js')).codeTasks },
  codeIntel: { tasks: ['codeIntelAnalyse'], load: async () => (await import('./codeIntel/tasks.js')).codeIntelTasks },
  detect: { tasks: ['detectIssues'], load: async () => (await import('./detect/tasks.js')).detectTasks },
  tools: {
    tasks: ['compressToolOutput', 'classifyContent', 'filterCliOutput', 'encodeMetaTokens', 'decodeMetaTokens', 'countTokensMany', 'compressMany'],
    load: async () => (await import('./tools/tasks.js')).toolTasks,
  },
  embed: { tasks: ['embed'], load: async () => (await import('./embed/tasks.js')).embedTasks },
  kb: { tasks: ['kbPrepare', 'kbEmbedTexts', 'kbDiff'], load: async () => (await import('./kb/tasks.js')).kbTasks },
  ingest: {
    tasks: ['ingestParseTranscript', 'ingestExtractMedia', 'ingestDuplicates', 'ingestRank', 'ingestCountTokens'],
    load: async () => (await import('./ingest/tasks.js')).ingestTasks,
  },
  memory: {
    tasks: ['memoryPrepare', 'memoryCount', 'afmPrepare', 'afmPack', 'knowledgeCompile', 'knowledgeLint', 'memorySearch'],
    load: async () => (await import('./memory/tasks.js')).memoryTasks,
  },
  ace: { tasks: ['aceMatch', 'aceCandidates', 'aceClusters'], load: async () => (await import('./ace/tasks.js')).aceTasks },
  plans: { tasks: ['planPropose', 'planApply', 'planBlame'], load: async () => (await import('./plans/tasks.js')).planTasks },
  skills: { tasks: ['scanSkill'], load: async () => (await import('./skills/tasks.js')).skillTasks },
  web: {
    tasks: ['webExtract', 'webParseFeed', 'webParseSitemap', 'webPrepareDocuments', 'webRankHits'],
    load: async () => (await import('./web/tasks.js')).webTasks,
  },
  docs: { tasks: ['docsSearch', 'docsRead', 'docsCoverage'], load: async () => (await import('./docs/tasks.js')).docsTasks },
  prompts: {
    tasks: [
      'promptAnalyze', 'promptRender', 'promptCompare', 'promptRewriteCheck', 'promptSegments', 'datasetCheckSchemas',
      'experimentRenderCheck', 'experimentScore', 'experimentBootstrap', 'syntheticCases',
    ],
    load: async () => (await import('./prompts/tasks.js')).promptTasks,
  },
  cache: { tasks: ['cacheDiff', 'cacheAudit', 'cacheHash'], load: async () => (await import('./cache/tasks.js')).cacheTasks },
  evidence: { tasks: ['evidenceStats'], load: async () => (await import('./evidence/tasks.js')).evidenceTasks },
};

/** Tasks every thread has from the start. */
const builtins = {
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

/** Every task the pool runs, by name. src/pool derives its typed API from this type. */
export type Tasks = typeof textTasks & typeof codeTasks & typeof codeIntelTasks & typeof detectTasks & typeof toolTasks & typeof embedTasks &
  typeof kbTasks & typeof ingestTasks & typeof memoryTasks & typeof aceTasks & typeof planTasks & typeof skillTasks & typeof webTasks &
  typeof docsTasks & typeof promptTasks & typeof cacheTasks & typeof evidenceTasks & typeof builtins;

const groupOf = new Map(Object.values(TASK_GROUPS).flatMap((g) => g.tasks.map((t) => [t, g] as const)));
const loaded = new Map<string, TaskFn>(Object.entries(builtins) as [string, TaskFn][]);

async function loadGroup(group: { load: () => Promise<Record<string, TaskFn>> }): Promise<void> {
  for (const [k, fn] of Object.entries(await group.load())) loaded.set(k, fn);
}

/** The task's function, its group's module imported on first use. */
async function taskNamed(name: string): Promise<TaskFn | undefined> {
  const known = loaded.get(name);
  if (known) return known;
  const group = groupOf.get(name);
  if (!group) return undefined;
  await loadGroup(group);
  return loaded.get(name);
}

// The text engine serves nearly every request: loaded before the thread takes its first task (about 6 MB).
await loadGroup(TASK_GROUPS.text!);

export type TaskName = keyof Tasks;

export interface TaskEnvelope {
  name: string;
  input: unknown;
}

export type TaskOutcome = { ok: true; value: unknown } | { ok: false; error: TaskFailure };

/**
 * Piscina entry. Errors travel as data: structured cloning keeps only standard error names,
 * and routes map by name (CodeInputError -> 422, BlastRadiusInputError -> tool error).
 */
export default async function run({ name, input }: TaskEnvelope): Promise<TaskOutcome> {
  try {
    const task = await taskNamed(name);
    if (!task) return { ok: false, error: { name: 'UnknownTask', message: `unknown task '${name}'` } };
    return { ok: true, value: await task(input as never) };
  } catch (err) {
    return { ok: false, error: taskFailure(err) };
  }
}
