// The Knowledge Hub's index thread (node:worker_threads, started by src/knowledge/indexClient.ts).
// It owns every project's HNSW + BM25 index, so searches and inserts never touch the event loop
// and a project's index lives in exactly one place (the compute pool has no task affinity).
import { parentPort, workerData } from 'node:worker_threads';
import { getEmbedder } from '../embed/index.js';
import { ProjectIndex } from './projectIndex.js';

export type IndexRequest =
  | { op: 'info'; project: string }
  | { op: 'create'; project: string; dims: number; generation: number }
  | { op: 'load'; project: string }
  | { op: 'add'; project: string; labels: Int32Array; vectors: Float32Array; texts: string[]; generation?: number }
  | { op: 'remove'; project: string; labels: Int32Array; generation?: number }
  | { op: 'setGeneration'; project: string; generation: number }
  | { op: 'labels'; project: string }
  | { op: 'query'; project: string; text: string; k: number; kLexical: number; ef?: number }
  | { op: 'drop'; project: string }
  | { op: 'save'; project?: string }
  | { op: 'stats' }
  | { op: 'exit' };

export interface IndexInfo {
  loaded: boolean;
  dims: number;
  count: number;
  generation: number;
}

const dir: string | null = (workerData as { snapshotDir: string | null } | undefined)?.snapshotDir ?? null;
const projects = new Map<string, ProjectIndex>();

function info(project: string): IndexInfo {
  const p = projects.get(project);
  return p ? { loaded: true, dims: p.dims, count: p.count, generation: p.generation } : { loaded: false, dims: 0, count: 0, generation: -1 };
}

function need(project: string): ProjectIndex {
  const p = projects.get(project);
  if (!p) throw Object.assign(new Error(`index for project ${project} is not loaded`), { code: 'not_loaded' });
  return p;
}

async function handle(req: IndexRequest): Promise<unknown> {
  switch (req.op) {
    case 'info':
      return info(req.project);
    case 'create': {
      const p = ProjectIndex.create(req.dims);
      p.generation = req.generation;
      projects.set(req.project, p);
      return info(req.project);
    }
    case 'load': {
      if (projects.has(req.project)) return { ...info(req.project), fromSnapshot: false };
      const p = dir ? ProjectIndex.load(dir, req.project) : null;
      if (p) projects.set(req.project, p);
      return { ...info(req.project), fromSnapshot: !!p };
    }
    case 'add': {
      const p = need(req.project);
      const added = p.add(req.labels, req.vectors, req.texts);
      if (req.generation !== undefined) p.generation = Math.max(p.generation, req.generation);
      return { added, count: p.count };
    }
    case 'remove': {
      const p = projects.get(req.project);
      if (!p) return { removed: 0, count: 0 };
      const removed = p.remove(req.labels);
      if (req.generation !== undefined) p.generation = Math.max(p.generation, req.generation);
      return { removed, count: p.count };
    }
    case 'setGeneration': {
      const p = need(req.project);
      p.generation = req.generation;
      return info(req.project);
    }
    case 'labels':
      return need(req.project).liveLabels();
    case 'query': {
      // Embeds the query here: no hop through the compute pool, whose queue ingest work may fill.
      const embedder = await getEmbedder();
      const [vector] = await embedder.embed([req.text]);
      const p = need(req.project);
      const vec = p.searchVector(vector!, req.k, req.ef);
      const lexical = p.searchLexical(req.text, req.kLexical);
      const seen = new Set(vec.labels);
      const extra = lexical.labels.filter((l) => !seen.has(l));
      const extraScores = p.similarities(extra, vector!);
      const similarity: Record<number, number> = {};
      vec.labels.forEach((l, i) => (similarity[l] = vec.scores[i]!));
      extra.forEach((l, i) => (similarity[l] = extraScores[i]!));
      return { vector: vec, lexical, similarity, count: p.count };
    }
    case 'drop':
      projects.delete(req.project);
      if (dir) ProjectIndex.remove(dir, req.project);
      return true;
    case 'save': {
      if (!dir) return { saved: 0 };
      let saved = 0;
      for (const [id, p] of projects) {
        if (req.project && id !== req.project) continue;
        if (!p.dirty && !req.project) continue;
        p.save(dir, id);
        saved++;
      }
      return { saved };
    }
    case 'exit':
      await warm;
      setImmediate(() => process.exit(0));
      return true;
    case 'stats':
      return { projects: projects.size, chunks: [...projects.values()].reduce((s, p) => s + p.count, 0) };
  }
}

// Messages are handled strictly in order (an async query must not interleave with an add).
let chain: Promise<void> = Promise.resolve();
parentPort!.on('message', (msg: { id: number; req: IndexRequest }) => {
  chain = chain.then(() => reply(msg));
});
// Warm the embedder so the first query does not pay for loading the model. Exiting waits for it:
// tearing the thread down while onnxruntime is still creating its session aborts the process.
const warm = getEmbedder().catch(() => undefined);

async function reply(msg: { id: number; req: IndexRequest }): Promise<void> {
  try {
    const value = await handle(msg.req);
    const transfer = value instanceof Int32Array ? [value.buffer] : [];
    parentPort!.postMessage({ id: msg.id, ok: true, value }, transfer as ArrayBuffer[]);
  } catch (err) {
    const e = err as Error & { code?: string };
    parentPort!.postMessage({ id: msg.id, ok: false, error: { message: e.message, code: e.code } });
  }
}
