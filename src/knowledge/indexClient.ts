import { join } from 'node:path';
import type { IndexInfo, IndexRequest } from '../../workers/kb/indexThread.js';
import type { SearchHits } from '../../workers/kb/projectIndex.js';
import { packageRoot } from '../lib/root.js';
import { ThreadClient } from '../pool/threadClient.js';

export class IndexThreadError extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
    this.name = 'IndexThreadError';
  }
}

type WireReply = { id: number; ok: boolean; value?: unknown; error?: { message: string; code?: string } };

/**
 * Message client of the index thread (workers/kb/indexThread.ts). One per process: all project
 * indexes live in that thread, so there is never a question of which worker holds which index.
 */
export class IndexClient {
  private readonly thread: ThreadClient<IndexRequest>;

  constructor(snapshotDir: string | null) {
    this.thread = new ThreadClient<IndexRequest>({
      file: join(packageRoot(), 'dist', 'workers', 'kb', 'indexThread.js'),
      workerData: { snapshotDir },
      encode: (id, req) => ({ id, req }),
      decode: (m) => {
        const msg = m as WireReply;
        return msg.ok ? { id: msg.id, value: msg.value } : { id: msg.id, error: new IndexThreadError(msg.error!.message, msg.error!.code) };
      },
      gone: ({ error, code }) => error ?? new IndexThreadError(`index thread exited with code ${code}`),
    });
  }

  info(project: string) {
    return this.thread.request<IndexInfo>({ op: 'info', project });
  }
  create(project: string, dims: number, generation: number) {
    return this.thread.request<IndexInfo>({ op: 'create', project, dims, generation });
  }
  load(project: string) {
    return this.thread.request<IndexInfo & { fromSnapshot: boolean }>({ op: 'load', project });
  }
  /** vectors: row-major labels.length x dims. Buffers are copied, not transferred. */
  add(project: string, labels: Int32Array, vectors: Float32Array, texts: string[], generation?: number) {
    return this.thread.request<{ added: number; count: number }>({ op: 'add', project, labels, vectors, texts, generation });
  }
  remove(project: string, labels: Int32Array, generation?: number) {
    return this.thread.request<{ removed: number; count: number }>({ op: 'remove', project, labels, generation });
  }
  setGeneration(project: string, generation: number) {
    return this.thread.request<IndexInfo>({ op: 'setGeneration', project, generation });
  }
  labels(project: string) {
    return this.thread.request<Int32Array>({ op: 'labels', project });
  }
  /** Embeds `text` in the thread, then vector + BM25 search; similarity covers every returned label. */
  query(project: string, text: string, k: number, kLexical: number, ef?: number) {
    return this.thread.request<{ vector: SearchHits; lexical: SearchHits; similarity: Record<number, number>; count: number }>({ op: 'query', project, text, k, kLexical, ef });
  }
  drop(project: string) {
    return this.thread.request<boolean>({ op: 'drop', project });
  }
  save(project?: string) {
    return this.thread.request<{ saved: number }>({ op: 'save', project });
  }
  stats() {
    return this.thread.request<{ projects: number; chunks: number }>({ op: 'stats' });
  }

  /** Asks the thread to exit once idle (native resources shut down in order); terminates if it does not within 10 s. */
  close(): Promise<void> {
    return this.thread.close({ op: 'exit' }, { timeoutMs: 10_000, exitsItself: true, closedError: new IndexThreadError('index thread is closed') });
  }
}
