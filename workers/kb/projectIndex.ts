// One project's search structures, held by the index thread: an HNSW graph over the chunk
// embeddings (hnswlib-node, cosine space) and an incremental BM25 index over the chunk texts.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode, encode } from '@msgpack/msgpack';
import hnswlib from 'hnswlib-node';
import { LexicalIndex, type LexicalSnapshot } from './lexical.js';

const { HierarchicalNSW } = hnswlib;

export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 200;
/** Search beam; raised to k when k is larger. Chosen from bench/kb (recall@10 vs brute force). */
export const HNSW_EF_SEARCH = 400;
const INITIAL_CAPACITY = 1024;

export interface SearchHits {
  labels: number[];
  /** Cosine similarity (1 - cosine distance). */
  scores: number[];
}

const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const view = <T>(b: Uint8Array, C: { new (buf: ArrayBuffer): T; BYTES_PER_ELEMENT: number }): T => {
  // A fresh, aligned, owned buffer (Buffer#slice would share the pool's memory).
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new C(copy.buffer);
};

export class ProjectIndex {
  private hnsw: InstanceType<typeof HierarchicalNSW>;
  private lexical: LexicalIndex;
  private deleted = new Set<number>();
  private present = new Set<number>();
  generation = 0;
  dirty = false;

  private constructor(readonly dims: number, hnsw: InstanceType<typeof HierarchicalNSW>, lexical: LexicalIndex) {
    this.hnsw = hnsw;
    this.lexical = lexical;
  }

  static create(dims: number): ProjectIndex {
    const h = new HierarchicalNSW('cosine', dims);
    h.initIndex({ maxElements: INITIAL_CAPACITY, m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, randomSeed: 100 });
    h.setEf(HNSW_EF_SEARCH);
    return new ProjectIndex(dims, h, new LexicalIndex());
  }

  get count(): number {
    return this.present.size - this.deleted.size;
  }

  /** Labels held and not deleted. */
  liveLabels(): Int32Array {
    const out: number[] = [];
    for (const l of this.present) if (!this.deleted.has(l)) out.push(l);
    return Int32Array.from(out);
  }

  add(labels: ArrayLike<number>, vectors: Float32Array, texts: string[]): number {
    let added = 0;
    const need = this.hnsw.getCurrentCount() + labels.length;
    if (need > this.hnsw.getMaxElements()) this.hnsw.resizeIndex(Math.max(need, this.hnsw.getMaxElements() * 2));
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!;
      if (this.present.has(label)) {
        // Re-adding a deleted label (resync): bring it back.
        if (this.deleted.has(label)) {
          try {
            this.hnsw.unmarkDelete(label);
          } catch {
            /* already live */
          }
          this.deleted.delete(label);
        }
        continue;
      }
      const v = vectors.subarray(i * this.dims, (i + 1) * this.dims);
      this.hnsw.addPoint(Array.from(v), label);
      this.lexical.add(label, texts[i] ?? '');
      this.present.add(label);
      added++;
    }
    if (labels.length) this.dirty = true;
    return added;
  }

  remove(labels: ArrayLike<number>): number {
    let removed = 0;
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!;
      if (!this.present.has(label) || this.deleted.has(label)) continue;
      try {
        this.hnsw.markDelete(label);
      } catch {
        /* already deleted in the graph */
      }
      this.deleted.add(label);
      this.lexical.remove(label);
      removed++;
    }
    if (removed) this.dirty = true;
    return removed;
  }

  searchVector(vector: ArrayLike<number>, k: number, ef?: number): SearchHits {
    if (this.count === 0 || k <= 0) return { labels: [], scores: [] };
    this.hnsw.setEf(Math.max(k, ef ?? HNSW_EF_SEARCH));
    const r = this.hnsw.searchKnn(Array.from(vector), Math.min(k, this.count));
    return { labels: r.neighbors, scores: r.distances.map((d) => 1 - d) };
  }

  /** Cosine similarity of stored vectors to `vector` (hnswlib keeps them normalised in cosine space). */
  similarities(labels: number[], vector: ArrayLike<number>): number[] {
    let n = 0;
    for (let i = 0; i < vector.length; i++) n += vector[i]! * vector[i]!;
    const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
    return labels.map((l) => {
      try {
        const p = this.hnsw.getPoint(l);
        let s = 0;
        for (let i = 0; i < p.length; i++) s += p[i]! * vector[i]!;
        return s * inv;
      } catch {
        return 0;
      }
    });
  }

  searchLexical(query: string, k: number): SearchHits {
    if (k <= 0) return { labels: [], scores: [] };
    const r = this.lexical.search(query, k);
    return { labels: r.labels, scores: r.scores };
  }

  // ---- snapshots ---------------------------------------------------------------------------

  static paths(dir: string, project: string) {
    return { hnsw: join(dir, `${project}.hnsw`), meta: join(dir, `${project}.meta`) };
  }

  save(dir: string, project: string): void {
    mkdirSync(dir, { recursive: true });
    const p = ProjectIndex.paths(dir, project);
    const lex = this.lexical.snapshot();
    const meta = encode({
      version: 1,
      dims: this.dims,
      generation: this.generation,
      present: bytes(Int32Array.from(this.present)),
      deleted: bytes(Int32Array.from(this.deleted)),
      lex: {
        vocab: lex.vocab,
        counts: bytes(lex.counts),
        labels: bytes(lex.labels),
        tfs: bytes(lex.tfs),
        docLen: bytes(lex.docLen),
        live: bytes(lex.live),
      },
    });
    this.hnsw.writeIndexSync(p.hnsw + '.tmp');
    writeFileSync(p.meta + '.tmp', meta);
    renameSync(p.hnsw + '.tmp', p.hnsw);
    renameSync(p.meta + '.tmp', p.meta);
    this.dirty = false;
  }

  static load(dir: string, project: string): ProjectIndex | null {
    const p = ProjectIndex.paths(dir, project);
    if (!existsSync(p.hnsw) || !existsSync(p.meta)) return null;
    try {
      const m = decode(readFileSync(p.meta)) as {
        version: number; dims: number; generation: number; present: Uint8Array; deleted: Uint8Array;
        lex: { vocab: string[]; counts: Uint8Array; labels: Uint8Array; tfs: Uint8Array; docLen: Uint8Array; live: Uint8Array };
      };
      if (m.version !== 1) return null;
      const h = new HierarchicalNSW('cosine', m.dims);
      h.readIndexSync(p.hnsw);
      h.setEf(HNSW_EF_SEARCH);
      const lexSnap: LexicalSnapshot = {
        vocab: m.lex.vocab,
        counts: view(m.lex.counts, Int32Array),
        labels: view(m.lex.labels, Int32Array),
        tfs: view(m.lex.tfs, Uint16Array),
        docLen: view(m.lex.docLen, Uint16Array),
        live: view(m.lex.live, Uint8Array),
      };
      const idx = new ProjectIndex(m.dims, h, LexicalIndex.restore(lexSnap));
      for (const l of view(m.present, Int32Array)) idx.present.add(l);
      for (const l of view(m.deleted, Int32Array)) idx.deleted.add(l);
      idx.generation = Number(m.generation);
      return idx;
    } catch {
      return null;
    }
  }

  static remove(dir: string, project: string): void {
    const p = ProjectIndex.paths(dir, project);
    rmSync(p.hnsw, { force: true });
    rmSync(p.meta, { force: true });
  }
}
