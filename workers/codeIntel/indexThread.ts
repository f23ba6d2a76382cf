// The code-intelligence thread (node:worker_threads, started by src/codeIntel/client.ts). It owns
// every project's repository index (RepoIndex): the query side of gc_defs, gc_refs, gc_callers, …
// answered from memory, and the incremental graph updates of an ingest. Parsing happens in the
// compute pool; files arrive here as the analyses' JSON (also what the database stores), so a
// restart rebuilds from the database without parsing anything.
import { parentPort } from 'node:worker_threads';
import type { FileAnalysis } from '../code/types.js';
import { RepoIndex } from './repoIndex.js';
import type { ApplyStats } from './store.js';
import { UnitVectors } from './semantic.js';

export interface StoredFile {
  path: string;
  json: string;
}

export type QueryMethod = 'defs' | 'refs' | 'callees' | 'blast' | 'impact' | 'source' | 'deadCode' | 'repoMap' | 'search' | 'graph' | 'summary' | 'scan' | 'graphml' | 'contextRender' | 'capsule' | 'editPlan' | 'visualize';

export type CodeIndexRequest =
  | { op: 'info'; project: string }
  | { op: 'load'; project: string; generation: number; files: StoredFile[] }
  | { op: 'apply'; project: string; generation: number; upserts: StoredFile[]; deleted: string[] }
  | { op: 'ask'; project: string; method: QueryMethod; args: unknown[] }
  | { op: 'drop'; project: string }
  | { op: 'stats' }
  | { op: 'exit' };

export interface CodeIndexInfo {
  loaded: boolean;
  generation: number;
  files: number;
  units: number;
  edges: number;
}

const projects = new Map<string, RepoIndex>();

function info(project: string): CodeIndexInfo {
  const p = projects.get(project);
  return p ? { loaded: true, generation: p.generation, ...p.size } : { loaded: false, generation: -1, files: 0, units: 0, edges: 0 };
}

function decode(files: StoredFile[]): FileAnalysis[] {
  return files.map((f) => JSON.parse(f.json) as FileAnalysis);
}

const vectors = new WeakMap<RepoIndex, UnitVectors>();

/** search_code: BM25 fused with the embeddings' nearest definitions (embedded here on the first search after a change). */
async function hybridSearch(index: RepoIndex, query: string, limit: number) {
  let unitVectors = vectors.get(index);
  if (!unitVectors) vectors.set(index, (unitVectors = new UnitVectors()));
  // An apply may land while the embedder runs; align again until the vectors match the index searched.
  let texts = index.searchTexts();
  let aligned = await unitVectors.align(texts);
  while (texts !== index.searchTexts()) aligned = await unitVectors.align((texts = index.searchTexts()));
  const dense = await UnitVectors.nearest(query, aligned);
  if (texts !== index.searchTexts()) return hybridSearch(index, query, limit);
  return index.search(query, limit, dense);
}

function handle(req: CodeIndexRequest): unknown {
  switch (req.op) {
    case 'info':
      return info(req.project);
    case 'load': {
      const t0 = performance.now();
      const index = new RepoIndex();
      const analyses = decode(req.files);
      const decodeMs = performance.now() - t0;
      const stats: ApplyStats = index.apply(analyses, []);
      index.generation = req.generation;
      projects.set(req.project, index);
      return { ...stats, decode_ms: Math.round(decodeMs) };
    }
    case 'apply': {
      const index = projects.get(req.project);
      if (!index) throw Object.assign(new Error(`code index of project ${req.project} is not loaded`), { code: 'not_loaded' });
      const stats = index.apply(decode(req.upserts), req.deleted);
      index.generation = req.generation;
      return stats;
    }
    case 'ask': {
      const index = projects.get(req.project);
      if (!index) throw Object.assign(new Error(`code index of project ${req.project} is not loaded`), { code: 'not_loaded' });
      if (req.method === 'search') return hybridSearch(index, req.args[0] as string, req.args[1] as number);
      const fn = (index as unknown as Record<QueryMethod, (...a: unknown[]) => unknown>)[req.method];
      return fn.apply(index, req.args);
    }
    case 'drop':
      return projects.delete(req.project);
    case 'stats':
      return { projects: projects.size, files: [...projects.values()].reduce((s, p) => s + p.size.files, 0) };
    case 'exit':
      setImmediate(() => process.exit(0));
      return true;
  }
}

function fail(id: number, err: unknown): void {
  const e = err as Error & { code?: string };
  parentPort!.postMessage({ id, ok: false, error: { name: e.name, message: e.message, code: e.code } });
}

parentPort!.on('message', (msg: { id: number; req: CodeIndexRequest }) => {
  try {
    const value = handle(msg.req);
    if (value instanceof Promise) value.then((v) => parentPort!.postMessage({ id: msg.id, ok: true, value: v }), (err) => fail(msg.id, err));
    else parentPort!.postMessage({ id: msg.id, ok: true, value });
  } catch (err) {
    fail(msg.id, err);
  }
});
