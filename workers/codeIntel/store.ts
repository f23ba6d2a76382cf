// One project's repository index, held in memory by the code-intelligence thread (indexThread.ts):
// the storage side. It keeps every file's analysis (parsed once, in the pool) and the cross-file
// unit graph of the code engine (workers/code: unit table, import resolution, call/reference edges,
// PageRank), and updates the graph incrementally: a changed or deleted file recomputes only the
// edges a change can move (see apply()). Reading it is resolve.ts, mentions.ts, refs.ts, queries.ts,
// editPlan.ts, findings.ts, graphViews.ts and textViews.ts; repoIndex.ts gathers them behind one class.
import { CodeIndex, type DefInfo } from '../code/codeindex.js';
import type { CodeUnit } from '../code/types.js';
import { unitEdges, unitTable, type UnitEdge } from '../code/graph.js';
import { importResolver, resolveImports, type FileImports, type ImportResolution } from '../code/resolve.js';
import { Lookups } from './lookups.js';
import { unitPagerank } from './rank.js';
import type { ScanFinding } from './scan.js';
import type { RepoFileAnalysis } from './tasks.js';

/** The index's graph also links functions passed as values and own-class members read as properties. */
const VALUE_REFS = { valueRefs: true } as const;

/** An edge stored with its source file: target by (path, local unit index), so file order may change. */
interface LocalEdge {
  from: number;
  toSlot: FileSlot;
  to: number;
  kind: 'call' | 'reference';
  weight: number;
}

interface FileSlot {
  analysis: RepoFileAnalysis;
  /** Out-edges of this file's units (local indexes). */
  edges: LocalEdge[];
  /** Names this file's units call or mention (for incremental invalidation). */
  uses: Set<string>;
  /** Resolved imports as last computed (a change marks the file for edge recomputation). */
  importKey: string;
  /** Global index of this file's first unit in the current table. */
  base: number;
  /** This file's units as the table holds them (parents global); null: to be built. */
  global: CodeUnit[] | null;
  /** `edges` as the table's UnitEdge objects (global indexes), kept in step with `base`. */
  globalEdges: UnitEdge[];
}

export interface ApplyStats {
  files: number;
  units: number;
  edges: number;
  /** Files whose edges were recomputed. */
  recomputed_files: number;
  ms: number;
}

/** A signature or doc cut to n characters for an answer. */
export const clip = (s: string | null, n = 400): string | null => (s === null ? null : s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * What changed between a file's old and new units as other files' name resolution sees it: the
 * names whose definitions here differ (a unit added or removed, its kind or export changed), and
 * old local index -> new local index for the units that stayed (matched by qualified name, kind
 * and occurrence), or null when nothing moved.
 */
export function diffUnits(before: CodeUnit[], after: CodeUnit[]): { changed: Set<string>; remap: Int32Array | null } {
  const ids = (units: CodeUnit[]) => {
    const count = new Map<string, number>();
    return units.map((u) => {
      const k = `${u.qualified}\u0001${u.kind}`;
      const n = count.get(k) ?? 0;
      count.set(k, n + 1);
      return `${k}\u0001${n}`;
    });
  };
  const oldIds = ids(before);
  const newIds = ids(after);
  const sigs = (units: CodeUnit[], keys: string[]) => {
    const m = new Map<string, string[]>();
    units.forEach((u, j) => {
      let list = m.get(u.name);
      if (!list) m.set(u.name, (list = []));
      list.push(`${keys[j]}\u0001${u.exported ? 1 : 0}`);
    });
    return new Map([...m].map(([n, l]) => [n, l.sort().join('\u0002')]));
  };
  const a = sigs(before, oldIds);
  const b = sigs(after, newIds);
  const changed = new Set<string>();
  for (const [n, sig] of a) if (b.get(n) !== sig) changed.add(n);
  for (const n of b.keys()) if (!a.has(n)) changed.add(n);
  const at = new Map(newIds.map((k, j) => [k, j]));
  const remap = new Int32Array(before.length);
  let moved = false;
  oldIds.forEach((k, j) => {
    const to = at.get(k) ?? -1;
    remap[j] = to;
    if (to !== j) moved = true;
  });
  return { changed, remap: moved ? remap : null };
}

export class IndexStore {
  private readonly files = new Map<string, FileSlot>();
  private resolver: ((a: RepoFileAnalysis, f: number) => FileImports) | null = null;
  private lastImports: ImportResolution | null = null;
  /** name -> paths of files whose units call or mention it. */
  readonly users = new Map<string, Set<string>>();
  private index: CodeIndex = new CodeIndex([], { table: unitTable([]), imports: resolveImports([]), edges: [] });
  private lookups = new Lookups(this.index);
  /** gc_scan's findings per file analysis (all packs), kept until the file changes (a new analysis object). */
  readonly scanCache = new WeakMap<object, ScanFinding[]>();
  generation = -1;

  get size(): { files: number; units: number; edges: number } {
    return { files: this.index.paths.length, units: this.index.units.length, edges: this.index.edges.length };
  }

  get code(): CodeIndex {
    return this.index;
  }

  /** What is derived from the current graph on first use (line starts, children, ids, BM25, …); new after every apply. */
  get look(): Lookups {
    return this.lookups;
  }

  /**
   * Replaces (or adds) files and removes deleted ones, then rebuilds the unit table and import
   * resolution (cheap, linear) and recomputes edges only for files that can be affected:
   * the changed files, files whose resolved imports changed, and files that use a name the
   * changed or deleted files define (before or after the change). The result equals a full build.
   */
  apply(upserts: RepoFileAnalysis[], deleted: string[]): ApplyStats {
    const t0 = performance.now();
    const names = new Set<string>();
    const dirty = new Set<string>();
    /** Per changed path: old local unit index -> new one (-1: gone), for edges other files keep into it. */
    const remaps = new Map<FileSlot, Int32Array>();
    const upserted = new Set<string>();
    let pathsChanged = false;
    const forget = (path: string) => {
      const old = this.files.get(path);
      if (!old) return;
      for (const n of old.uses) this.users.get(n)?.delete(path);
    };
    for (const path of deleted) {
      const old = this.files.get(path);
      if (!old) continue;
      for (const u of old.analysis.units) names.add(u.name);
      forget(path);
      this.files.delete(path);
      pathsChanged = true;
    }
    for (const a of upserts) {
      const prev = this.files.get(a.path);
      if (prev) {
        // Only names whose definitions here changed in what other files' resolution sees (which
        // units, their kind and export) can move other files' edges; the rest are remapped.
        const { changed, remap } = diffUnits(prev.analysis.units, a.units);
        for (const n of changed) names.add(n);
        if (remap) remaps.set(prev, remap);
      } else {
        for (const u of a.units) names.add(u.name);
        pathsChanged = true;
      }
      forget(a.path);
      const uses = new Set<string>();
      for (const u of a.units) {
        for (const c of u.calls) uses.add(c);
        for (const id of u.identifiers) uses.add(id);
      }
      for (const c of a.module?.calls ?? []) uses.add(c);
      for (const id of a.module?.identifiers ?? []) uses.add(id);
      for (const n of uses) {
        let set = this.users.get(n);
        if (!set) this.users.set(n, (set = new Set()));
        set.add(a.path);
      }
      if (prev) {
        prev.analysis = a;
        prev.uses = uses;
        prev.importKey = '\u0000';
        prev.global = null;
      } else this.files.set(a.path, { analysis: a, edges: [], uses, importKey: '\u0000', base: -1, global: null, globalEdges: [] });
      dirty.add(a.path);
      upserted.add(a.path);
    }
    for (const n of names) for (const p of this.users.get(n) ?? []) dirty.add(p);
    // Edges of files not recomputed keep pointing at the same definitions in a changed file.
    if (remaps.size > 0) {
      for (const [path, s] of this.files) {
        if (dirty.has(path)) continue;
        for (const e of s.edges) {
          const r = remaps.get(e.toSlot);
          if (r) e.to = r[e.to]!;
        }
      }
    }
    const slots = [...this.files.values()];
    const analyses = slots.map((s) => s.analysis);
    // The unit table: each file keeps its units with global parents; a file whose first unit moved
    // only has its parents shifted, a changed file is copied again.
    const units: CodeUnit[] = [];
    const fileOf: number[] = [];
    const byName = new Map<string, number[]>();
    let offset = 0;
    slots.forEach((s, f) => {
      const local = s.analysis.units;
      if (!s.global) s.global = local.map((u) => (u.parent >= 0 ? { ...u, parent: u.parent + offset } : u));
      else if (s.base !== offset) for (let j = 0; j < local.length; j++) if (local[j]!.parent >= 0) s.global[j]!.parent = local[j]!.parent + offset;
      s.base = offset;
      for (let j = 0; j < local.length; j++) {
        const u = s.global[j]!;
        units.push(u);
        fileOf.push(f);
        const list = byName.get(u.name);
        if (list) list.push(offset + j);
        else byName.set(u.name, [offset + j]);
      }
      offset += local.length;
    });
    const table = { units, fileOf, byName };
    // Import resolution: whole when the set of paths changed, else again for the changed files only.
    let imports: ImportResolution;
    if (pathsChanged || !this.resolver || !this.lastImports) {
      this.resolver = importResolver(analyses);
      imports = resolveImports(analyses);
    } else {
      const prev = this.lastImports;
      imports = { imports: prev.imports.slice(), importedNames: prev.importedNames.slice(), perFile: prev.perFile.slice(), languages: prev.languages.slice(), dirs: prev.dirs };
      slots.forEach((s, f) => {
        if (!upserted.has(s.analysis.path)) return;
        const r = this.resolver!(s.analysis, f);
        imports.imports[f] = r.set;
        imports.importedNames[f] = r.names;
        imports.perFile[f] = { path: s.analysis.path, resolved: r.resolved, unresolved: r.unresolved };
        imports.languages[f] = s.analysis.language;
      });
    }
    this.lastImports = imports;
    slots.forEach((s, f) => {
      if (!pathsChanged && !upserted.has(s.analysis.path)) return;
      const key = imports.perFile[f]!.resolved.join('\n');
      if (key !== s.importKey) {
        s.importKey = key;
        dirty.add(s.analysis.path);
      }
    });
    let recomputed = 0;
    const scratch: UnitEdge[] = [];
    for (const s of slots) {
      if (!dirty.has(s.analysis.path)) continue;
      recomputed++;
      const base = s.base;
      scratch.length = 0;
      for (let j = 0; j < s.analysis.units.length; j++) unitEdges(table, imports, base + j, scratch, VALUE_REFS);
      s.edges = scratch.map((e) => {
        const toSlot = slots[table.fileOf[e.to]!]!;
        return { from: e.from - base, toSlot, to: e.to - toSlot.base, kind: e.kind, weight: e.weight };
      });
      s.globalEdges = s.edges.map((e) => ({ from: base + e.from, to: e.toSlot.base + e.to, kind: e.kind, weight: e.weight }));
    }
    // The edge list: each file's edge objects, indexes brought up to date where files moved.
    const edges: UnitEdge[] = [];
    for (const s of slots) {
      const base = s.base;
      const ge = s.globalEdges;
      for (let k = 0; k < ge.length; k++) {
        const e = s.edges[k]!;
        const g = ge[k]!;
        g.from = base + e.from;
        g.to = e.toSlot.base + e.to;
        edges.push(g);
      }
    }
    this.index = new CodeIndex(analyses, { table, imports, edges, pagerank: unitPagerank });
    this.lookups = new Lookups(this.index);
    return { ...this.size, recomputed_files: recomputed, ms: Math.round((performance.now() - t0) * 10) / 10 };
  }

  info(i: number): DefInfo {
    const d = this.index.info(i);
    return { ...d, signature: clip(d.signature, 600)!, doc: clip(d.doc) };
  }

  /** Unit index of an id (graph exports and tests). */
  unitById(id: string): number {
    return this.lookups.unitById(id);
  }
}
