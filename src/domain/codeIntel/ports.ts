// What the code-intelligence use cases reach of its runtime (src/codeIntel/hub.ts implements it: the
// thread holding every project's repository index and its sync against the database).
import type { QueryMethod } from '../../../workers/codeIntel/indexThread.js';
import type { ApplyStats } from '../../../workers/codeIntel/store.js';
import type { RepoFileAnalysed } from '../../../workers/codeIntel/tasks.js';
import type { ThreadGate } from '../ports/compute.js';

export interface CommitResult {
  generation: number;
  deleted: string[];
  apply: ApplyStats & { mode: 'incremental' | 'reload' | 'none' };
}

export interface CodeIntelHub {
  /** Queries reach the thread through this gate (src/domain/compute.ts runOnThread). */
  readonly door: ThreadGate;
  /** Process-wide counters (ingest adds the files it parsed). */
  readonly counters: { filesParsed: number; reloads: number; filesReloaded: number };
  /** Content hashes the project's stored index holds for these paths. */
  known(project: string, paths: string[]): Promise<Record<string, string>>;
  /** Stores an ingest's analyses and deletions, and brings the thread's index up to date. */
  commit(project: string, analysed: RepoFileAnalysed[], deleted: string[]): Promise<CommitResult>;
  /** Files and totals of a project's stored index. */
  status(project: string): Promise<{ generation: number | null; files: number; units: number; bytes: number }>;
  /** Runs one query against the project's index in the thread. */
  ask<T>(project: string, method: QueryMethod, args: unknown[]): Promise<T>;
}
