import { join } from 'node:path';
import type { CodeIndexInfo, CodeIndexRequest, QueryMethod, StoredFile } from '../../workers/codeIntel/indexThread.js';
import type { ApplyStats } from '../../workers/codeIntel/store.js';
import { packageRoot } from '../lib/root.js';
import { ThreadClient } from '../pool/threadClient.js';

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

type WireReply = { id: number; ok: boolean; value?: unknown; error?: { name: string; message: string; code?: string } };

/**
 * Message client of the code-intelligence thread (workers/codeIntel/indexThread.ts): one per
 * process, holding every project's repository index. Messages are answered in order.
 */
export class CodeIndexClient {
  private readonly thread = new ThreadClient<CodeIndexRequest>({
    file: join(packageRoot(), 'dist', 'workers', 'codeIntel', 'indexThread.js'),
    encode: (id, req) => ({ id, req }),
    decode: (m) => {
      const msg = m as WireReply;
      return msg.ok ? { id: msg.id, value: msg.value } : { id: msg.id, error: new CodeThreadError(msg.error!.name, msg.error!.message, msg.error!.code) };
    },
    gone: ({ error, code }) => error ?? new CodeThreadError('CodeThreadExit', `code index thread exited with code ${code}`),
  });

  info(project: string) {
    return this.thread.request<CodeIndexInfo>({ op: 'info', project });
  }
  load(project: string, generation: number, files: StoredFile[]) {
    return this.thread.request<ApplyStats & { decode_ms: number }>({ op: 'load', project, generation, files });
  }
  apply(project: string, generation: number, upserts: StoredFile[], deleted: string[]) {
    return this.thread.request<ApplyStats>({ op: 'apply', project, generation, upserts, deleted });
  }
  ask<T>(project: string, method: QueryMethod, args: unknown[]) {
    return this.thread.request<T>({ op: 'ask', project, method, args });
  }
  drop(project: string) {
    return this.thread.request<boolean>({ op: 'drop', project });
  }
  stats() {
    return this.thread.request<{ projects: number; files: number }>({ op: 'stats' });
  }

  /** Asks the thread to exit; terminates it if it has not within 10 s. */
  close(): Promise<void> {
    return this.thread.close({ op: 'exit' }, { timeoutMs: 10_000, exitsItself: true, closedError: new CodeThreadError('CodeThreadExit', 'code index thread is closed') });
  }
}
