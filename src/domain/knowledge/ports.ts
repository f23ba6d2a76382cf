// What the knowledge use cases reach of the Knowledge Hub runtime (src/knowledge/hub.ts implements it:
// the index thread, per-project index sync, the ingest queue).
import type { SearchHits } from '../../../workers/kb/projectIndex.js';
import type { ThreadGate } from '../ports/compute.js';

export interface IngestJob {
  itemId: string;
  versionId: string;
}

/** The query side of the index thread. */
export interface KnowledgeIndex {
  query(project: string, text: string, k: number, kLexical: number, ef?: number): Promise<{ vector: SearchHits; lexical: SearchHits; similarity: Record<number, number>; count: number }>;
}

export interface KnowledgeHub {
  /** Queries reach the index thread through this gate (src/domain/compute.ts runOnThread). */
  readonly door: ThreadGate;
  /** The index thread; a 503 (unavailable) while the hub is not running. */
  readonly index: KnowledgeIndex;
  /** Whether the project has an index, synced with the database first. */
  ensureIndex(project: string): Promise<boolean>;
  /** Queues an item version for chunking, embedding and indexing. */
  enqueue(job: IngestJob): void;
  /** After a soft delete committed: drop the item's labels from the index, bump the generation. */
  afterDelete(project: string, labels: number[]): Promise<void>;
}
