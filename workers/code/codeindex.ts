import { reach, resolveFocus } from './blast.js';
import { BlastRadiusInputError } from './errors.js';
import { adjacency, buildEdges, CODE_PAGERANK, unitTable, type UnitEdge, type UnitTable } from './graph.js';
import { pagerank } from '../shared/pagerank.js';
import { resolveImports, type ImportResolution } from './resolve.js';
import type { BlastEntry, BlastRadius, CodeUnit, FileAnalysis, UnitKind } from './types.js';

/** Plain description of a definition, shared by the gc_* tool results. */
export interface DefInfo {
  id: string;
  path: string;
  kind: UnitKind;
  name: string;
  qualified: string;
  signature: string;
  doc: string | null;
  start_line: number;
  end_line: number;
  exported: boolean;
}

export interface RefInfo extends DefInfo {
  /** How the referencing unit uses the symbol. */
  via: 'call' | 'reference';
  target: string;
}

/**
 * Cross-file index over FileAnalysis records: the unit table, resolved imports, call/reference
 * edges and PageRank. The MCP code tools (gc_defs, gc_refs, gc_callers, gc_impact,
 * gc_blast_radius, gc_source, detect_dead_code, gc_repo_map) are thin wrappers over its methods;
 * every method returns plain JSON-safe data.
 */
export class CodeIndex {
  readonly table: UnitTable;
  readonly edges: UnitEdge[];
  readonly imports: ImportResolution;
  readonly paths: string[];
  private incoming: number[][] | null = null;
  private pagerank: Float64Array | null = null;

  /** `parts`: a table, import resolution and edges built elsewhere (the incremental code-intelligence index). */
  constructor(
    readonly analyses: FileAnalysis[],
    parts?: { table: UnitTable; imports: ImportResolution; edges: UnitEdge[]; pagerank?: (n: number, edges: UnitEdge[]) => Float64Array },
  ) {
    this.paths = analyses.map((a) => a.path);
    this.table = parts?.table ?? unitTable(analyses);
    this.imports = parts?.imports ?? resolveImports(analyses);
    this.edges = parts?.edges ?? buildEdges(this.table, this.imports);
    this.rankWith = parts?.pagerank ?? null;
  }

  private readonly rankWith: ((n: number, edges: UnitEdge[]) => Float64Array) | null;

  /** PageRank of every unit, computed on first use. */
  get rank(): Float64Array {
    this.pagerank ??= this.rankWith ? this.rankWith(this.table.units.length, this.edges) : pagerank(adjacency(this.table.units.length, this.edges), CODE_PAGERANK);
    return this.pagerank;
  }

  get units(): CodeUnit[] {
    return this.table.units;
  }

  info(i: number): DefInfo {
    const u = this.table.units[i]!;
    return { id: u.id, path: this.paths[this.table.fileOf[i]!]!, kind: u.kind, name: u.name, qualified: u.qualified, signature: u.signature, doc: u.doc, start_line: u.startLine, end_line: u.endLine, exported: u.exported };
  }

  /** Unit indexes a symbol resolves to (id, path:name, Container.name or bare name). */
  resolve(symbol: string): number[] {
    return resolveFocus(this.table, this.paths, symbol);
  }

  incomingEdges(): number[][] {
    if (!this.incoming) {
      this.incoming = Array.from({ length: this.table.units.length }, () => []);
      this.edges.forEach((e, i) => this.incoming![e.to]!.push(i));
    }
    return this.incoming;
  }

  /** gc_defs */
  defs(symbol: string): DefInfo[] {
    return this.resolve(symbol).map((i) => this.info(i));
  }

  /** gc_refs: units that call or reference a definition of the symbol. */
  refs(symbol: string, kinds: Array<'call' | 'reference'> = ['call', 'reference']): RefInfo[] {
    const incoming = this.incomingEdges();
    const out: RefInfo[] = [];
    for (const target of this.resolve(symbol)) {
      for (const ei of incoming[target]!) {
        const e = this.edges[ei]!;
        if (kinds.includes(e.kind)) out.push({ ...this.info(e.from), via: e.kind, target: this.table.units[target]!.id });
      }
    }
    return out;
  }

  /** gc_callers */
  callers(symbol: string): RefInfo[] {
    return this.refs(symbol, ['call']);
  }

  /** Callees of a symbol (what it calls, resolved). */
  callees(symbol: string): DefInfo[] {
    const targets = new Set(this.resolve(symbol));
    const out = new Map<number, DefInfo>();
    for (const e of this.edges) if (targets.has(e.from) && e.kind === 'call') out.set(e.to, this.info(e.to));
    return [...out.values()];
  }

  /**
   * gc_blast_radius / gc_impact: what transitively depends on the focus symbols (dependents, upstream)
   * and what they depend on (dependencies, downstream), scored 0.5^distance.
   */
  blastRadius(symbols: string[] | null | undefined, maxDepth = 8): BlastRadius {
    const focus = (symbols ?? []).map((s) => s.trim()).filter(Boolean);
    if (focus.length === 0) throw new BlastRadiusInputError();
    const resolved: Record<string, string[]> = {};
    const notFound: string[] = [];
    const seeds: number[] = [];
    for (const s of focus) {
      const hits = this.resolve(s);
      if (hits.length === 0) notFound.push(s);
      resolved[s] = hits.map((i) => this.table.units[i]!.id);
      seeds.push(...hits);
    }
    const toEntry = (r: { unit: number; distance: number; score: number }): BlastEntry => ({
      id: this.table.units[r.unit]!.id,
      path: this.paths[this.table.fileOf[r.unit]!]!,
      name: this.table.units[r.unit]!.qualified,
      distance: r.distance,
      score: r.score,
    });
    const dependents = seeds.length ? reach(this.table, this.edges, seeds, true, maxDepth).map(toEntry) : [];
    const dependencies = seeds.length ? reach(this.table, this.edges, seeds, false, maxDepth).map(toEntry) : [];
    const affected = new Set<string>(seeds.map((i) => this.paths[this.table.fileOf[i]!]!));
    for (const d of dependents) affected.add(d.path);
    return { focus, resolved, dependents, dependencies, affected_files: [...affected].sort(), not_found: notFound, result_incomplete: notFound.length > 0 };
  }

  /** gc_impact: the dependents half of the blast radius. */
  impact(symbols: string[]): BlastEntry[] {
    return this.blastRadius(symbols).dependents;
  }

  /** gc_source: full text of each definition of the symbol. */
  source(symbol: string): Array<DefInfo & { text: string }> {
    return this.resolve(symbol).map((i) => {
      const u = this.table.units[i]!;
      return { ...this.info(i), text: this.analyses[this.table.fileOf[i]!]!.content.slice(u.start, u.end) };
    });
  }

  /**
   * detect_dead_code: functions and methods nothing in the set calls or references, that are not
   * public API, dunder/lifecycle hooks, entry points or tests. Heuristic: dynamic dispatch is invisible.
   */
  deadCode(): DefInfo[] {
    const incoming = this.incomingEdges();
    const calledNames = new Set<string>();
    for (const u of this.table.units) for (const c of u.calls) calledNames.add(c);
    const out: DefInfo[] = [];
    this.table.units.forEach((u, i) => {
      if (u.kind !== 'function' && u.kind !== 'method') return;
      if (incoming[i]!.length > 0 || u.exported || calledNames.has(u.name)) return;
      // A function nested in a function is a local: often handed out as a value (`return createDebug`).
      const parent = u.parent >= 0 ? this.table.units[u.parent]! : null;
      if (parent && (parent.kind === 'function' || parent.kind === 'method')) return;
      if (/^(__\w+__|main|init|setUp|tearDown|test\w*|Test\w*)$/.test(u.name)) return;
      out.push(this.info(i));
    });
    return out;
  }
}
