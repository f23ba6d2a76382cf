import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CodeIndexInfo, CodeIndexRequest, QueryMethod, StoredFile } from '../../workers/codeIntel/indexThread.js';
import type { ApplyStats } from '../../workers/codeIntel/repoIndex.js';
import { packageRoot } from '../lib/root.js';

/** An error raised in the code-intelligence thread; `name` is the thread-side class name (BlastRadiusInputError). */
export class CodeThreadError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * Message client of the code-intelligence thread (workers/codeIntel/indexThread.ts): one per
 * process, holding every project's repository index. Messages are answered in order.
 */
export class CodeIndexClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private exited: Error | null = null;

  constructor() {
    this.worker = new Worker(join(packageRoot(), 'dist', 'workers', 'codeIntel', 'indexThread.js'));
    this.worker.on('message', (msg: { id: number; ok: boolean; value?: unknown; error?: { name: string; message: string; code?: string } }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(new CodeThreadError(msg.error!.name, msg.error!.message, msg.error!.code));
    });
    const fail = (err: Error) => {
      this.exited = err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new CodeThreadError('CodeThreadExit', `code index thread exited with code ${code}`)));
  }

  private send<T>(req: CodeIndexRequest): Promise<T> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, req });
    });
  }

  info(project: string) {
    return this.send<CodeIndexInfo>({ op: 'info', project });
  }
  load(project: string, generation: number, files: StoredFile[]) {
    return this.send<ApplyStats & { decode_ms: number }>({ op: 'load', project, generation, files });
  }
  apply(project: string, generation: number, upserts: StoredFile[], deleted: string[]) {
    return this.send<ApplyStats>({ op: 'apply', project, generation, upserts, deleted });
  }
  ask<T>(project: string, method: QueryMethod, args: unknown[]) {
    return this.send<T>({ op: 'ask', project, method, args });
  }
  drop(project: string) {
    return this.send<boolean>({ op: 'drop', project });
  }
  stats() {
    return this.send<{ projects: number; files: number }>({ op: 'stats' });
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    await this.send({ op: 'exit' }).catch(() => undefined);
    const timer = setTimeout(() => void this.worker.terminate(), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
