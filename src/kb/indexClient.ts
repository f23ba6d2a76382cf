import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { IndexInfo, IndexRequest } from '../../workers/kb/indexThread.js';
import type { SearchHits } from '../../workers/kb/projectIndex.js';
import { packageRoot } from '../lib/root.js';

export class IndexThreadError extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
    this.name = 'IndexThreadError';
  }
}

/**
 * Message client of the index thread (workers/kb/indexThread.ts). One per process: all project
 * indexes live in that thread, so there is never a question of which worker holds which index.
 */
export class IndexClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private exited: Error | null = null;

  constructor(snapshotDir: string | null) {
    this.worker = new Worker(join(packageRoot(), 'dist', 'workers', 'kb', 'indexThread.js'), { workerData: { snapshotDir } });
    this.worker.on('message', (msg: { id: number; ok: boolean; value?: unknown; error?: { message: string; code?: string } }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(new IndexThreadError(msg.error!.message, msg.error!.code));
    });
    const fail = (err: Error) => {
      this.exited = err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new IndexThreadError(`index thread exited with code ${code}`)));
  }

  private send<T>(req: IndexRequest, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, req }, transfer);
    });
  }

  info(project: string) {
    return this.send<IndexInfo>({ op: 'info', project });
  }
  create(project: string, dims: number, generation: number) {
    return this.send<IndexInfo>({ op: 'create', project, dims, generation });
  }
  load(project: string) {
    return this.send<IndexInfo & { fromSnapshot: boolean }>({ op: 'load', project });
  }
  /** vectors: row-major labels.length x dims. Buffers are copied, not transferred. */
  add(project: string, labels: Int32Array, vectors: Float32Array, texts: string[], generation?: number) {
    return this.send<{ added: number; count: number }>({ op: 'add', project, labels, vectors, texts, generation });
  }
  remove(project: string, labels: Int32Array, generation?: number) {
    return this.send<{ removed: number; count: number }>({ op: 'remove', project, labels, generation });
  }
  setGeneration(project: string, generation: number) {
    return this.send<IndexInfo>({ op: 'setGeneration', project, generation });
  }
  labels(project: string) {
    return this.send<Int32Array>({ op: 'labels', project });
  }
  /** Embeds `text` in the thread, then vector + BM25 search; similarity covers every returned label. */
  query(project: string, text: string, k: number, kLexical: number, ef?: number) {
    return this.send<{ vector: SearchHits; lexical: SearchHits; similarity: Record<number, number>; count: number }>({ op: 'query', project, text, k, kLexical, ef });
  }
  drop(project: string) {
    return this.send<boolean>({ op: 'drop', project });
  }
  save(project?: string) {
    return this.send<{ saved: number }>({ op: 'save', project });
  }
  stats() {
    return this.send<{ projects: number; chunks: number }>({ op: 'stats' });
  }

  /** Asks the thread to exit once idle (native resources shut down in order); terminates if it does not. */
  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    await this.send({ op: 'exit' }).catch(() => undefined);
    const timer = setTimeout(() => void this.worker.terminate(), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
