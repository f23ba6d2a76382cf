// Main-side Knowledge Hub runtime: the index thread, per-project index sync against Postgres,
// and the asynchronous ingest queue (chunk + embed in the pool, index in the thread, commit).
import { join } from 'node:path';
import { TaskError } from '../pool/pool.js';
import { runTask } from '../domain/compute.js';
import { DomainError, unavailable } from '../domain/errors.js';
import type { Logger } from '../lib/log.js';
import type { ComputePool } from '../pool/pool.js';
import type { Db, Queryable } from '../store/db.js';
import { IndexClient } from './indexClient.js';
import { ThreadDoor, THREAD_DOOR_DEFAULTS } from '../pool/threadDoor.js';
import { KeyedLock } from '../lib/keyedLock.js';
import type { IngestJob, KnowledgeHub as KnowledgeHubPort } from '../domain/knowledge/ports.js';

export type { IngestJob };

/** Ingest jobs run at most this many at a time per process (each fans out to the pool). */
export const INGEST_CONCURRENCY = 2;
/** Snapshots of changed indexes are written this often (and on close). */
export const SNAPSHOT_INTERVAL_MS = 30_000;
/**
 * Ingests untouched this long are taken as abandoned (the instance running them died) and queued here
 * too; looked for at this interval. Two instances preparing one item commit it once (commit's check).
 */
export const ABANDONED_INGEST_MS = 120_000;
const SYNC_BATCH = 2000;
const BUSY_RETRIES = 20;

interface IndexState {
  generation: number;
  dims: number | null;
  model_id: string | null;
}

/** Decodes a float32 little-endian bytea (Buffer under postgres.js, Uint8Array under PGlite). */
export function decodeVector(value: unknown, dims: number): Float32Array {
  const bytes = value instanceof Uint8Array ? value : Buffer.from(String(value), 'hex');
  const out = new Float32Array(dims);
  new Uint8Array(out.buffer).set(bytes.subarray(0, dims * 4));
  return out;
}

export function encodeVector(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** What the hub needs; it is built in app.ts before the Services object. */
export interface KnowledgeDeps {
  db: Db;
  pool: ComputePool;
  log: Logger;
}

/**
 * One per running app (services.knowledge). start() starts the index thread, snapshots changed
 * indexes every 30 s, and in the background loads every project's index (snapshot first, persisted
 * embeddings otherwise) and resumes ingests a previous process left unfinished (`ready` settles then).
 * close() waits for that and for running ingests, saves snapshots and stops the thread; call it
 * before the pool and the database close. A closed hub can be started again (tests restart it).
 */
export class KnowledgeHub implements KnowledgeHubPort {
  readonly snapshotDir: string | null;
  /** Settles once the last start()'s index loading and ingest resumption are done (failures are logged). */
  ready: Promise<void> = Promise.resolve();
  /** The index thread's client while running (between start() and the end of close()). */
  private client: IndexClient | null = null;
  /** Searches reach the index thread through this door (src/domain/compute.ts runOnThread). */
  readonly door = new ThreadDoor('knowledge index thread', THREAD_DOOR_DEFAULTS);
  /** Generation (kb_index_state) the index thread is known to reflect, per project. */
  private readonly synced = new Map<string, number>();
  private readonly locks = new KeyedLock();
  private readonly queue: IngestJob[] = [];
  private readonly queued = new Set<string>();
  private running = 0;
  private readonly active = new Set<Promise<void>>();
  private idleWaiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private resumer: NodeJS.Timeout | null = null;
  /** True until start() and again from close() on: no ingest is queued, running ones stop early. */
  private closed = true;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly deps: KnowledgeDeps,
    dataDir: string,
  ) {
    this.snapshotDir = dataDir === 'memory://' ? null : join(dataDir, 'kb-index');
  }

  /** The index thread; a 503 (unavailable) before start() and after close(). */
  get index(): IndexClient {
    if (!this.client) throw unavailable('Knowledge search is not running', 1);
    return this.client;
  }

  get db(): Queryable {
    return this.deps.db;
  }

  /** Starts the index thread and, in the background, index loading and ingest resumption (see `ready`). No-op while running. */
  start(): void {
    if (this.closing) throw new Error('KnowledgeHub.start() while close() is in progress; await close() first');
    if (this.client) return;
    this.client = new IndexClient(this.snapshotDir);
    this.closed = false;
    this.synced.clear();
    this.startSnapshots();
    // Another instance's crash leaves its ingests pending or indexing: resumed here without a restart.
    this.resumer = setInterval(() => {
      this.resumePending(ABANDONED_INGEST_MS).catch((err) => this.deps.log.warn('kb ingest resumption failed', { error: String(err) }));
    }, ABANDONED_INGEST_MS / 2);
    this.resumer.unref();
    this.ready = (async () => {
      await this.preload();
      await this.resumePending();
    })().catch((err) => this.deps.log.error('kb startup failed', { error: err instanceof Error ? err.message : String(err) }));
  }

  /** close() then start(); resolves once the fresh start is ready (tests: index thread restart). */
  async restart(): Promise<void> {
    await this.close();
    this.start();
    await this.ready;
  }

  private startSnapshots(): void {
    if (!this.snapshotDir || this.timer) return;
    this.timer = setInterval(() => {
      this.index.save().catch((err) => this.deps.log.error('kb snapshot failed', { error: String(err) }));
    }, SNAPSHOT_INTERVAL_MS);
    this.timer.unref();
  }

  /** Runs fn with the project's lock: index syncs and ingest commits never interleave. */
  withLock<T>(project: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(project, fn);
  }

  private async state(project: string): Promise<IndexState | null> {
    const [row] = await this.db.query<IndexState>('select generation, dims, model_id from kb_index_state where project_id = $1', [project]);
    return row ? { ...row, generation: Number(row.generation) } : null;
  }

  /**
   * Makes the thread's index of `project` reflect the database (loading a snapshot, else
   * rebuilding from the persisted embeddings). Returns false when the project has no index yet.
   * Cheap when already in sync: one primary-key lookup.
   */
  async ensureIndex(project: string): Promise<boolean> {
    const st = await this.state(project);
    if (!st || st.dims === null) return false;
    if (this.synced.get(project) === st.generation) return true;
    await this.withLock(project, () => this.syncLocked(project));
    return true;
  }

  /** Caller holds the project lock. */
  private async syncLocked(project: string): Promise<void> {
    const st = await this.state(project);
    if (!st || st.dims === null) return;
    if (this.synced.get(project) === st.generation) return;
    let info = await this.index.info(project);
    if (!info.loaded) info = await this.index.load(project);
    if (!info.loaded || info.dims !== st.dims) info = await this.index.create(project, st.dims, -1);
    if (info.generation !== st.generation) {
      const held = await this.index.labels(project);
      const rows = await this.db.query<{ label: number }>(
        `select c.label from kb_chunks c join kb_items i on i.id = c.item_id
          where c.project_id = $1 and c.version_id = i.current_version_id and i.deleted_at is null`,
        [project],
      );
      const want = new Set(rows.map((r) => r.label));
      const have = new Set(held);
      const missing = [...want].filter((l) => !have.has(l)).sort((a, b) => a - b);
      const extra = [...have].filter((l) => !want.has(l));
      for (let i = 0; i < missing.length; i += SYNC_BATCH) {
        const batch = missing.slice(i, i + SYNC_BATCH);
        const chunks = await this.db.query<{ label: number; heading: string | null; raw_text: string; embedding: Uint8Array }>(
          'select label, heading, raw_text, embedding from kb_chunks where project_id = $1 and label = any($2::int[]) order by label',
          [project, batch],
        );
        const vectors = new Float32Array(chunks.length * st.dims);
        chunks.forEach((c, j) => vectors.set(decodeVector(c.embedding, st.dims!), j * st.dims!));
        await this.index.add(project, Int32Array.from(chunks.map((c) => c.label)), vectors, chunks.map(lexicalText));
      }
      if (extra.length) await this.index.remove(project, Int32Array.from(extra));
      await this.index.setGeneration(project, st.generation);
    }
    this.synced.set(project, st.generation);
  }

  /** Bumps the project's generation after a committed change and records it when we were in sync. */
  async bumpGeneration(tx: Queryable, project: string): Promise<number | null> {
    const [row] = await tx.query<{ generation: number }>(
      'update kb_index_state set generation = generation + 1 where project_id = $1 returning generation',
      [project],
    );
    return row ? Number(row.generation) : null;
  }

  private async noteGeneration(project: string, generation: number | null): Promise<void> {
    if (generation === null) return;
    if (this.synced.get(project) === generation - 1) {
      this.synced.set(project, generation);
      await this.client?.setGeneration(project, generation).catch(() => undefined);
    }
  }

  /** After a soft delete committed: drop the item's labels from the index, bump the generation. */
  async afterDelete(project: string, labels: number[]): Promise<void> {
    await this.withLock(project, async () => {
      const gen = await this.bumpGeneration(this.db, project);
      // Not running (closed): the next start resyncs from the bumped generation.
      if (labels.length) await this.client?.remove(project, Int32Array.from(labels)).catch(() => undefined);
      await this.noteGeneration(project, gen);
    });
  }

  // ---- ingest ----------------------------------------------------------------------------------

  enqueue(job: IngestJob): void {
    if (this.closed || this.queued.has(job.versionId)) return;
    this.queued.add(job.versionId);
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (this.running < INGEST_CONCURRENCY && this.queue.length) {
      const job = this.queue.shift()!;
      this.running++;
      const p = this.ingest(job)
        .catch((err) => this.deps.log.error('kb ingest failed', { item: job.itemId, error: err instanceof Error ? err.message : String(err) }))
        .finally(() => {
          this.running--;
          this.queued.delete(job.versionId);
          this.active.delete(p);
          this.pump();
          if (this.running === 0 && this.queue.length === 0) this.idleWaiters.splice(0).forEach((f) => f());
        });
      this.active.add(p);
    }
  }

  /** Resolves when no ingest is queued or running (tests, bench). */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private async runPool<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'unavailable' && attempt < BUSY_RETRIES && !this.closed) {
          await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
          continue;
        }
        throw err;
      }
    }
  }

  private async ingest(job: IngestJob): Promise<void> {
    const [claimed] = await this.db.query<{ project_id: string }>(
      `update kb_items set status = 'indexing', updated_at = now()
        where id = $1 and current_version_id = $2 and deleted_at is null and status in ('pending', 'indexing') returning project_id`,
      [job.itemId, job.versionId],
    );
    if (!claimed) return; // superseded by a newer version, deleted, or already done
    const project = claimed.project_id;
    const [version] = await this.db.query<{ content: string }>('select content from kb_versions where id = $1', [job.versionId]);
    let prep;
    try {
      prep = await this.runPool(() => runTask(this.deps, 'kbPrepare', { text: version?.content ?? '' }));
    } catch (err) {
      if (this.closed || isShutdown(err)) return; // left pending/indexing: resumed on the next start
      await this.fail(job, project, err);
      return;
    }
    try {
      await this.commit(job, project, prep);
    } catch (err) {
      if (this.closed || isShutdown(err)) return;
      await this.fail(job, project, err);
    }
  }

  private async commit(
    job: IngestJob,
    project: string,
    prep: { chunks: { ordinal: number; heading: string | null; raw_text: string; tokens: number; skeleton: string }[]; dims: number; model: string; vectors: Float32Array },
  ): Promise<void> {
    const n = prep.chunks.length;
    await this.withLock(project, async () => {
      // Reserve labels (also creates the project's index state on first use).
      const [alloc] = await this.db.query<{ next_label: number; dims: number }>(
        `insert into kb_index_state (project_id, next_label, dims, model_id) values ($1, $2, $3, $4)
         on conflict (project_id) do update set next_label = kb_index_state.next_label + $2,
           dims = coalesce(kb_index_state.dims, excluded.dims), model_id = coalesce(kb_index_state.model_id, excluded.model_id)
         returning next_label, dims`,
        [project, n, prep.dims, prep.model],
      );
      if (alloc!.dims !== prep.dims) {
        throw new Error(`embedding model produces ${prep.dims} dims but this project's index has ${alloc!.dims}; reindex the project`);
      }
      await this.syncLocked(project);
      const first = alloc!.next_label - n;
      const labels = Int32Array.from({ length: n }, (_, i) => first + i);
      // Into the index before the commit: a query in between resolves no row for these labels yet.
      if (n) await this.index.add(project, labels, prep.vectors, prep.chunks.map(lexicalText));
      const outcome = await this.deps.db.transaction(async (tx) => {
        const [cur] = await tx.query<{ current_version_id: string; deleted_at: Date | null; status: string }>(
          'select current_version_id, deleted_at, status from kb_items where id = $1 for update',
          [job.itemId],
        );
        // Superseded, deleted, or already committed by another runner (two instances resuming).
        if (!cur || cur.current_version_id !== job.versionId || cur.deleted_at || cur.status === 'ready') return null;
        await insertChunks(tx, project, job, prep, labels);
        const old = await tx.query<{ label: number }>('delete from kb_chunks where item_id = $1 and version_id <> $2 returning label', [
          job.itemId,
          job.versionId,
        ]);
        await tx.query(`update kb_items set status = 'ready', chunk_count = $2, error = null, updated_at = now() where id = $1`, [job.itemId, n]);
        const gen = await this.bumpGeneration(tx, project);
        return { gen, old: old.map((r) => r.label) };
      });
      if (!outcome) {
        if (n) await this.index.remove(project, labels);
        return;
      }
      if (outcome.old.length) await this.index.remove(project, Int32Array.from(outcome.old));
      await this.noteGeneration(project, outcome.gen);
    });
  }

  private async fail(job: IngestJob, project: string, err: unknown): Promise<void> {
    const message = err instanceof TaskError ? `${err.name}: ${err.message}` : err instanceof Error ? err.message : String(err);
    this.deps.log.error('kb ingest failed', { item: job.itemId, version: job.versionId, error: message });
    await this.withLock(project, async () => {
      const outcome = await this.deps.db.transaction(async (tx) => {
        const [row] = await tx.query<{ id: string }>(
          `update kb_items set status = 'FAILED', chunk_count = 0, error = $3, updated_at = now()
            where id = $1 and current_version_id = $2 and deleted_at is null and status <> 'ready' returning id`,
          [job.itemId, job.versionId, message.slice(0, 500)],
        );
        if (!row) return null;
        const old = await tx.query<{ label: number }>('delete from kb_chunks where item_id = $1 returning label', [job.itemId]);
        const gen = old.length ? await this.bumpGeneration(tx, project) : null;
        return { gen, old: old.map((r) => r.label) };
      });
      if (outcome?.old.length) await this.client?.remove(project, Int32Array.from(outcome.old)).catch(() => undefined);
      if (outcome) await this.noteGeneration(project, outcome.gen);
    });
  }

  /**
   * Items left pending/indexing by a previous process (or another instance's crash) are queued again:
   * all of them at start, and those untouched for `untouchedMs` periodically (ABANDONED_INGEST_MS).
   */
  async resumePending(untouchedMs = 0): Promise<number> {
    const rows = await this.db.query<{ id: string; current_version_id: string }>(
      `select id, current_version_id from kb_items where deleted_at is null and status in ('pending', 'indexing') and current_version_id is not null
          and updated_at <= now() - ($1::int * interval '1 millisecond')
        order by updated_at`,
      [untouchedMs],
    );
    for (const r of rows) this.enqueue({ itemId: r.id, versionId: r.current_version_id });
    return rows.length;
  }

  /** Loads (snapshot) and syncs every project that has an index, so the first queries are fast. */
  async preload(): Promise<number> {
    const rows = await this.db.query<{ project_id: string }>('select project_id from kb_index_state where dims is not null');
    for (const r of rows) await this.ensureIndex(r.project_id);
    return rows.length;
  }

  /** Idempotent; resolves when the thread has stopped (a hub never started closes at once). */
  close(): Promise<void> {
    this.closing ??= this.shutdown().finally(() => {
      this.closing = null;
    });
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const client = this.client;
    if (!client) return;
    await this.ready;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.resumer) clearInterval(this.resumer);
    this.timer = this.resumer = null;
    this.queue.length = 0;
    this.queued.clear();
    await Promise.allSettled([...this.active]);
    if (this.snapshotDir) await client.save().catch((err) => this.deps.log.error('kb snapshot failed', { error: String(err) }));
    await client.close();
    this.client = null;
  }
}

function isShutdown(err: unknown): boolean {
  return err instanceof Error && /terminat|closed|destroy|shut/i.test(err.message);
}

/** Text the BM25 side indexes: heading path plus the chunk. */
function lexicalText(c: { heading: string | null; raw_text: string }): string {
  return c.heading ? `${c.heading}\n${c.raw_text}` : c.raw_text;
}

const INSERT_BATCH = 400;

async function insertChunks(
  tx: Queryable,
  project: string,
  job: IngestJob,
  prep: { chunks: { ordinal: number; heading: string | null; raw_text: string; tokens: number; skeleton: string }[]; dims: number; vectors: Float32Array },
  labels: Int32Array,
): Promise<void> {
  for (let i = 0; i < prep.chunks.length; i += INSERT_BATCH) {
    const slice = prep.chunks.slice(i, i + INSERT_BATCH);
    const params: unknown[] = [project, job.itemId, job.versionId];
    const values = slice.map((c, j) => {
      const k = i + j;
      params.push(labels[k], c.ordinal, c.heading, c.raw_text, c.skeleton, c.tokens, encodeVector(prep.vectors.subarray(k * prep.dims, (k + 1) * prep.dims)));
      const b = params.length - 7;
      return `($1, $${b + 1}, $2, $3, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7})`;
    });
    await tx.query(
      `insert into kb_chunks (project_id, label, item_id, version_id, ordinal, heading, raw_text, skeleton, tokens, embedding) values ${values.join(', ')}`,
      params,
    );
  }
}
