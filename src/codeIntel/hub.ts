// Main-side runtime of code intelligence: the thread holding every project's repository index,
// its sync against the database (code_files, code_index_state), and the commit of an ingest.
// Like the Knowledge Hub (src/knowledge/hub.ts): the database decides, the thread holds the query side.
import { invalidInput, notFound, unavailable } from '../domain/errors.js';
import type { Logger } from '../lib/log.js';
import type { Db } from '../store/db.js';
import type { QueryMethod, StoredFile } from '../../workers/codeIntel/indexThread.js';
import type { ApplyStats } from '../../workers/codeIntel/store.js';
import type { RepoFileAnalysed } from '../../workers/codeIntel/tasks.js';
import { CodeIndexClient, CodeThreadError } from './client.js';
import { ThreadDoor, THREAD_DOOR_DEFAULTS } from '../pool/threadDoor.js';
import { KeyedLock } from '../lib/keyedLock.js';
import type { CodeIntelHub as CodeIntelHubPort, CommitResult } from '../domain/codeIntel/ports.js';

export type { CommitResult };

export interface CodeIntelDeps {
  db: Db;
  log: Logger;
}

/**
 * services.codeIntel. start() enables it; the thread starts on first use (indexes load lazily, per project);
 * close() stops it. A project's index is (re)built from the stored analyses whenever the thread's
 * generation differs from the database's: after a restart, or when another instance wrote.
 */
export class CodeIntelHub implements CodeIntelHubPort {
  private client: CodeIndexClient | null = null;
  /** Generation the thread is known to hold, per project. */
  private readonly synced = new Map<string, number>();
  private readonly locks = new KeyedLock();
  /** Process-wide counters (tests: a restart parses nothing; reloads come from the database). */
  readonly counters = { filesParsed: 0, reloads: 0, filesReloaded: 0 };
  /** Queries reach the thread through this door (src/domain/compute.ts runOnThread). */
  readonly door = new ThreadDoor('code index thread', THREAD_DOOR_DEFAULTS);

  constructor(private readonly deps: CodeIntelDeps) {}

  /** Between start() and close(); the thread itself starts on first use (most processes never index code). */
  private running = false;

  start(): void {
    if (this.running) return;
    this.running = true;
    this.synced.clear();
  }

  async close(): Promise<void> {
    const c = this.client;
    this.running = false;
    this.client = null;
    this.synced.clear();
    if (c) await c.close();
  }

  /** Stops the thread and starts a fresh one (tests: the in-memory side is lost, the database stays). */
  async restart(): Promise<void> {
    await this.close();
    this.start();
  }

  private get thread(): CodeIndexClient {
    if (!this.running) throw unavailable('Code intelligence is not running', 1);
    return (this.client ??= new CodeIndexClient());
  }

  private withLock<T>(project: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(project, fn);
  }

  async generation(project: string): Promise<number | null> {
    const [row] = await this.deps.db.query<{ generation: string | number }>('select generation from code_index_state where project_id = $1', [project]);
    return row ? Number(row.generation) : null;
  }

  /** Stored content hashes of these paths (an ingest skips files whose content did not change). */
  async known(project: string, paths: string[]): Promise<Record<string, string>> {
    if (paths.length === 0) return {};
    const rows = await this.deps.db.query<{ path: string; content_hash: string }>(
      'select path, content_hash from code_files where project_id = $1 and path = any($2::text[])',
      [project, paths],
    );
    return Object.fromEntries(rows.map((r) => [r.path, r.content_hash]));
  }

  /** Caller holds the lock. Loads the project's stored analyses into the thread (no parsing). */
  private async reloadLocked(project: string, generation: number): Promise<ApplyStats> {
    const rows = await this.deps.db.query<{ path: string; analysis: string }>('select path, analysis from code_files where project_id = $1 order by path', [project]);
    const stats = await this.thread.load(project, generation, rows.map((r) => ({ path: r.path, json: r.analysis })));
    this.synced.set(project, generation);
    this.counters.reloads++;
    this.counters.filesReloaded += rows.length;
    return stats;
  }

  /** Makes the thread hold the project's current index; not_found when the project has none. */
  async ensure(project: string): Promise<number> {
    const generation = await this.generation(project);
    if (generation === null) throw notFound('This project has no code index yet: send its files with gc_orient first');
    if (this.synced.get(project) === generation) return generation;
    return this.withLock(project, async () => {
      const current = (await this.generation(project))!;
      if (this.synced.get(project) === current) return current;
      const info = await this.thread.info(project);
      if (info.loaded && info.generation === current) this.synced.set(project, current);
      else await this.reloadLocked(project, current);
      return current;
    });
  }

  /**
   * Stores the analysed files and removes the deleted ones in one transaction that bumps the
   * generation, then brings the thread along: incrementally when it held the previous
   * generation, else by a reload from the database.
   */
  async commit(project: string, analysed: RepoFileAnalysed[], deleted: string[]): Promise<CommitResult> {
    return this.withLock(project, async () => {
      const before = await this.generation(project);
      const { generation, removed } = await this.deps.db.transaction(async (tx) => {
        const [row] = await tx.query<{ generation: string | number }>(
          `insert into code_index_state (project_id, generation) values ($1, 1)
             on conflict (project_id) do update set generation = code_index_state.generation + 1, updated_at = now()
           returning generation`,
          [project],
        );
        const gen = Number(row!.generation);
        for (const f of analysed) {
          await tx.query(
            `insert into code_files (project_id, path, content_hash, language, parser, bytes, units, parse_errors, analysis, generation)
               values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             on conflict (project_id, path) do update set content_hash = excluded.content_hash, language = excluded.language,
               parser = excluded.parser, bytes = excluded.bytes, units = excluded.units, parse_errors = excluded.parse_errors,
               analysis = excluded.analysis, generation = excluded.generation, updated_at = now()`,
            [project, f.path, f.hash, f.language, f.parser, f.bytes, f.units, f.parse_errors, f.json, gen],
          );
        }
        const gone = deleted.length
          ? await tx.query<{ path: string }>('delete from code_files where project_id = $1 and path = any($2::text[]) returning path', [project, deleted])
          : [];
        return { generation: gen, removed: gone.map((r) => r.path) };
      });
      const info = await this.thread.info(project);
      if (info.loaded && before !== null && info.generation === before && this.synced.get(project) === before) {
        const upserts: StoredFile[] = analysed.map((f) => ({ path: f.path, json: f.json }));
        const stats = await this.thread.apply(project, generation, upserts, removed);
        this.synced.set(project, generation);
        return { generation, deleted: removed, apply: { ...stats, mode: 'incremental' as const } };
      }
      const stats = await this.reloadLocked(project, generation);
      return { generation, deleted: removed, apply: { ...stats, mode: 'reload' as const } };
    });
  }

  /** Files and totals of a project's stored index (no thread involved). */
  async status(project: string) {
    const generation = await this.generation(project);
    const [row] = await this.deps.db.query<{ files: string | number; units: string | number; bytes: string | number }>(
      'select count(*) as files, coalesce(sum(units), 0) as units, coalesce(sum(bytes), 0) as bytes from code_files where project_id = $1',
      [project],
    );
    return { generation, files: Number(row?.files ?? 0), units: Number(row?.units ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  /** Runs one query against the project's index in the thread. */
  async ask<T>(project: string, method: QueryMethod, args: unknown[]): Promise<T> {
    await this.ensure(project);
    try {
      return await this.thread.ask<T>(project, method, args);
    } catch (err) {
      if (err instanceof CodeThreadError && err.name === 'BlastRadiusInputError') {
        throw invalidInput(err.message, [{ loc: ['focus_symbol'], msg: err.message, type: 'BlastRadiusInputError' }], { code: 'BlastRadiusInputError' });
      }
      if (err instanceof CodeThreadError && err.code === 'not_loaded') {
        // The thread was restarted between ensure() and the query: forget what we knew and retry once.
        this.synced.delete(project);
        await this.ensure(project);
        return this.thread.ask<T>(project, method, args);
      }
      throw err;
    }
  }
}
