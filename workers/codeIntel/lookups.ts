// What the queries derive from one build of the unit graph, each computed on first use: line
// starts, children, id and path maps, unit offsets, out- and in-adjacency, BM25 postings and the
// texts for the embeddings. The store (store.ts) makes a new one after every apply, so nothing
// here outlives the graph it was computed from.
import { Bm25Postings, words } from '../code/bm25.js';
import type { CodeIndex } from '../code/codeindex.js';
import { computeLineStarts } from '../code/text.js';
import { unitText } from './semantic.js';
import { moduleGaps, type RepoFileAnalysis } from './tasks.js';

export class Lookups {
  private readonly lineStarts = new Map<number, number[]>();
  private readonly gaps = new Map<number, Array<[number, number]>>();
  private children: number[][] | null = null;
  private idOf: Map<string, number> | null = null;
  private fileOfPath: Map<string, number> | null = null;
  private unitOffsets: number[] | null = null;
  private outgoing: number[][] | null = null;
  /** Callers of each unit (reverse call/reference adjacency). */
  private reverseAdj: number[][] | null = null;
  private bm25Index: Bm25Postings | null = null;
  private unitTexts: string[] | null = null;

  constructor(private readonly index: CodeIndex) {}

  /** 1-based line of a character offset in file f. */
  lineAt(f: number, offset: number): number {
    let ls = this.lineStarts.get(f);
    if (!ls) this.lineStarts.set(f, (ls = computeLineStarts(this.index.analyses[f]!.content)));
    let lo = 0;
    let hi = ls.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ls[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** Offsets [start, end) of file f's module-level text (tasks.ts moduleGaps). */
  gapsOf(f: number): Array<[number, number]> {
    let gaps = this.gaps.get(f);
    if (!gaps) this.gaps.set(f, (gaps = moduleGaps(this.index.analyses[f]! as RepoFileAnalysis)));
    return gaps;
  }

  childrenOf(i: number): number[] {
    if (!this.children) {
      this.children = Array.from({ length: this.index.units.length }, () => []);
      this.index.units.forEach((u, j) => {
        if (u.parent >= 0) this.children![u.parent]!.push(j);
      });
    }
    return this.children[i]!;
  }

  /** Unit index of an id, or -1. */
  unitById(id: string): number {
    if (!this.idOf) this.idOf = new Map(this.index.units.map((u, i) => [u.id, i]));
    return this.idOf.get(id) ?? -1;
  }

  /** File index of an exact indexed path, or -1. */
  pathIndex(path: string): number {
    if (!this.fileOfPath) this.fileOfPath = new Map(this.index.paths.map((p, f) => [p, f]));
    return this.fileOfPath.get(path) ?? -1;
  }

  /** Global index of file f's local unit `local`. */
  unitIndex(f: number, local: number): number {
    if (!this.unitOffsets) {
      let o = 0;
      this.unitOffsets = this.index.analyses.map((a) => {
        const here = o;
        o += a.units.length;
        return here;
      });
    }
    return this.unitOffsets[f]! + local;
  }

  /** Whether unit i has an edge to a definition named `name`. */
  hasEdgeToName(i: number, name: string): boolean {
    if (!this.outgoing) {
      this.outgoing = Array.from({ length: this.index.units.length }, () => []);
      this.index.edges.forEach((e, k) => this.outgoing![e.from]!.push(k));
    }
    return this.outgoing[i]!.some((k) => this.index.units[this.index.edges[k]!.to]!.name === name);
  }

  /** Units that reach `seed` over at most `depth` reversed edges, with their distance. */
  dependentsOf(seed: number, depth: number): Array<{ unit: number; distance: number }> {
    if (!this.reverseAdj) {
      this.reverseAdj = Array.from({ length: this.index.units.length }, () => []);
      for (const e of this.index.edges) this.reverseAdj[e.to]!.push(e.from);
    }
    const dist = new Map<number, number>([[seed, 0]]);
    let frontier = [seed];
    for (let d = 1; d <= depth && frontier.length; d++) {
      const next: number[] = [];
      for (const u of frontier) for (const v of this.reverseAdj[u]!) if (!dist.has(v)) dist.set(v, d), next.push(v);
      frontier = next;
    }
    dist.delete(seed);
    return [...dist].map(([unit, distance]) => ({ unit, distance }));
  }

  /** BM25 postings over each unit's identifiers, name (twice), doc and path words. */
  bm25(): Bm25Postings {
    if (!this.bm25Index) {
      const pathWords = new Map<number, string[]>();
      this.bm25Index = new Bm25Postings(this.index.units.map((u, i) => {
        const name = words(u.qualified);
        const docs = [...u.identifiers, ...name, ...name];
        if (u.doc) docs.push(...words(u.doc.length > 2000 ? u.doc.slice(0, 2000) : u.doc));
        const f = this.index.table.fileOf[i]!;
        let pw = pathWords.get(f);
        if (!pw) pathWords.set(f, (pw = words(this.index.paths[f]!)));
        docs.push(...pw);
        return docs;
      }));
    }
    return this.bm25Index;
  }

  /** Each definition's text for the dense ranking (semantic.ts); a new array after every change of the index. */
  searchTexts(): readonly string[] {
    if (!this.unitTexts) {
      const { units, table, paths } = this.index;
      this.unitTexts = units.map((u, i) => unitText(u, paths[table.fileOf[i]!]!));
    }
    return this.unitTexts;
  }
}
