import type { CodeUnit, FileAnalysis } from './types.js';
import type { SparseGraph } from '../shared/pagerank.js';

/** Edge in the unit graph: `from` calls or references `to`. */
export interface UnitEdge {
  from: number;
  to: number;
  kind: 'call' | 'reference';
  weight: number;
}

/** Global unit table across files plus name indexes, the base of every analysis query. */
export interface UnitTable {
  units: CodeUnit[];
  /** File index of each unit. */
  fileOf: number[];
  byName: Map<string, number[]>;
}

export function unitTable(analyses: FileAnalysis[]): UnitTable {
  const units: CodeUnit[] = [];
  const fileOf: number[] = [];
  const byName = new Map<string, number[]>();
  analyses.forEach((a, f) => {
    const offset = units.length;
    for (const u of a.units) {
      const idx = units.length;
      // Parent indexes become global so containment survives the merge.
      units.push(u.parent >= 0 ? { ...u, parent: u.parent + offset } : u);
      fileOf.push(f);
      let list = byName.get(u.name);
      if (!list) byName.set(u.name, (list = []));
      list.push(idx);
    }
  });
  return { units, fileOf, byName };
}

const CONSTRUCTORS = new Set(['__init__', '__new__', '__post_init__', 'constructor', 'new']);
const TYPE_KINDS = new Set(['class', 'interface', 'struct', 'enum', 'trait', 'type']);
/** Names this common resolve to too many definitions to mean anything. */
const MAX_CANDIDATES = 4;

export interface ResolveScope {
  /** For each file, the set of files it imports (resolved). */
  imports: Set<number>[];
  /** For each file, names it imports explicitly (`from x import name`). */
  importedNames: Set<string>[];
  /** For each file, its language and directory: what an unimported name can still reach. */
  languages: string[];
  dirs: string[];
}

/**
 * Where a name that is neither local nor imported may still be defined: anywhere for C/C++
 * (headers are textual) and Rust (crate paths), the same directory for Go and Java (package
 * scope), nowhere for Python/JS/TS (a call to `str()` there is a builtin, not stdlib `locale.str`).
 */
const IMPLICIT_SCOPE: Record<string, 'global' | 'package'> = { c: 'global', cpp: 'global', rust: 'global', go: 'package', java: 'package' };

/**
 * Resolve a name used in unit `from` to definitions, by scope: same container, same file,
 * imported files / explicitly imported names, then a globally unique definition.
 */
export function resolveName(table: UnitTable, scope: ResolveScope | null, from: number, name: string): number[] {
  const candidates = table.byName.get(name);
  if (!candidates || candidates.length === 0) return [];
  const fromUnit = table.units[from]!;
  const file = table.fileOf[from]!;
  const own = candidates.filter((c) => c !== from);
  if (own.length === 0) return [];
  const sameContainer = own.filter((c) => table.fileOf[c] === file && table.units[c]!.container === fromUnit.container && fromUnit.container !== null);
  if (sameContainer.length > 0) return sameContainer;
  let sameFile = own.filter((c) => table.fileOf[c] === file);
  // C/C++ prototype plus definition of one function: the definition is the target.
  if (sameFile.length > 1 && sameFile.some((c) => table.units[c]!.bodyStart !== null)) sameFile = sameFile.filter((c) => table.units[c]!.bodyStart !== null);
  if (sameFile.length > 0) return sameFile.length <= MAX_CANDIDATES ? sameFile : [];
  if (!scope) return [];
  const imported = own.filter((c) => scope.imports[file]!.has(table.fileOf[c]!));
  if (imported.length > 0) return imported.length <= MAX_CANDIDATES ? imported : [];
  // An explicitly imported name reaches what another file exports (not a private helper of the same name).
  if (scope.importedNames[file]!.has(name) && own.length <= MAX_CANDIDATES) return own.filter((c) => table.units[c]!.exported);
  const implicit = IMPLICIT_SCOPE[scope.languages[file]!];
  if (implicit === 'package') {
    const dir = scope.dirs[file];
    const samePackage = own.filter((c) => scope.dirs[table.fileOf[c]!] === dir);
    return samePackage.length <= MAX_CANDIDATES ? samePackage : [];
  }
  if (implicit === 'global' && own.length === 1) return own;
  return [];
}

/** Calls -> call edges; identifiers naming a type-like unit -> reference edges. */
export function buildEdges(table: UnitTable, scope: ResolveScope | null): UnitEdge[] {
  const edges: UnitEdge[] = [];
  for (let i = 0; i < table.units.length; i++) unitEdges(table, scope, i, edges);
  return edges;
}

export interface EdgeOptions {
  /**
   * Also reference edges for names used without a call that resolve to a top-level function (passed
   * as a value) or to a member of the unit's own class (`this.db`, a getter). The code-intelligence
   * index asks for them (gc_refs); the compression ranking keeps calls and type references only.
   */
  valueRefs?: boolean;
}

/**
 * The out-edges of one unit, appended to `edges` (buildEdges over every unit; the code-intelligence
 * index recomputes only the units a change can affect).
 */
export function unitEdges(table: UnitTable, scope: ResolveScope | null, i: number, edges: UnitEdge[], opts: EdgeOptions = {}): void {
  const { units } = table;
  const u = units[i]!;
  const seen = new Set<number>();
  // Instantiating a class runs its constructor: class -> constructor edge.
  if (u.parent >= 0 && (CONSTRUCTORS.has(u.name) || u.name === units[u.parent]!.name)) edges.push({ from: u.parent, to: i, kind: 'call', weight: 1 });
  for (const name of u.calls) {
    const targets = resolveName(table, scope, i, name);
    for (const t of targets) {
      if (t === i || seen.has(t)) continue;
      seen.add(t);
      edges.push({ from: i, to: t, kind: 'call', weight: 1 / targets.length });
    }
  }
  const file = table.fileOf[i]!;
  // A name used without a call still depends on: a type, a function passed as a value
  // (`xs.map(parse)`, `.catch(onError)`), a member of the unit's own class read as a property
  // (`this.db`, a getter; `self.handler` passed as a callback).
  const referable = (c: number) => {
    const k = units[c]!.kind;
    return TYPE_KINDS.has(k) || (opts.valueRefs === true && k === 'function' && units[c]!.container === null) || (opts.valueRefs === true && k === 'method' && u.container !== null && units[c]!.container === u.container && table.fileOf[c] === file);
  };
  for (const name of u.identifiers) {
    const candidates = table.byName.get(name);
    if (!candidates || candidates.length > MAX_CANDIDATES) continue;
    if (!candidates.some(referable)) continue;
    const targets = resolveName(table, scope, i, name).filter((t) => referable(t) && units[t]!.parent !== i && t !== u.parent);
    for (const t of targets) {
      if (t === i || seen.has(t) || isAncestor(units, t, i)) continue;
      seen.add(t);
      edges.push({ from: i, to: t, kind: 'reference', weight: 0.5 / targets.length });
    }
  }
}

function isAncestor(units: CodeUnit[], maybeAncestor: number, unit: number): boolean {
  for (let p = units[unit]!.parent; p >= 0; p = units[p]!.parent) if (p === maybeAncestor) return true;
  return false;
}

/** The unit graph as the shared PageRank takes it: weighted out-links per unit. */
export function adjacency(n: number, edges: UnitEdge[]): SparseGraph {
  const neighbors: number[][] = Array.from({ length: n }, () => []);
  const weights: number[][] = Array.from({ length: n }, () => []);
  for (const e of edges) {
    neighbors[e.from]!.push(e.to);
    weights[e.from]!.push(e.weight);
  }
  return { neighbors, weights };
}

/** The code engine's PageRank settings: more iterations and a tighter tolerance than TextRank's (rankings of thousands of units). */
export const CODE_PAGERANK = { maxIterations: 50, tolerance: 1e-9 } as const;
