// The read side of the index for one symbol or one question (gc_defs, gc_callees, gc_blast_radius,
// gc_impact, gc_source, detect_dead_code, search_code) and the graph checks tests use. Each returns
// plain JSON-safe data.
import { reach } from '../code/blast.js';
import { BlastRadiusInputError } from '../code/errors.js';
import { SEARCH_RRF_WEIGHTS } from './semantic.js';
import { reciprocalRankFusion, RRF_K } from '../shared/rrf.js';
import type { RepoFileAnalysis } from './tasks.js';
import { clip, type IndexStore } from './store.js';
import { fileIndex, resolve, resolveFrom } from './resolve.js';

export function defs(ix: IndexStore, symbol: string, from: string | null, limit: number) {
  let hits: number[];
  let scope: string | null = null;
  if (from && /^[A-Za-z_$][\w$]*$/.test(symbol.trim())) {
    const f = fileIndex(ix, from);
    if (f < 0) return { symbol, from, definitions: [], total: 0, ambiguous: false, not_found: true, reason: `no indexed file ${from}` };
    scope = ix.code.paths[f]!;
    hits = resolveFrom(ix, f, symbol.trim());
  } else hits = resolve(ix, symbol);
  return {
    symbol,
    from: scope,
    definitions: hits.slice(0, limit).map((i) => ix.info(i)),
    total: hits.length,
    ambiguous: hits.length > 1,
    not_found: hits.length === 0,
  };
}

export function callees(ix: IndexStore, symbol: string, limit: number) {
  const targets = resolve(ix, symbol);
  const set = new Set(targets);
  const seen = new Map<number, { weight: number }>();
  for (const e of ix.code.edges) if (set.has(e.from) && e.kind === 'call' && !set.has(e.to)) seen.set(e.to, { weight: e.weight });
  const list = [...seen].map(([i, { weight }]) => ({ ...ix.info(i), ambiguous: weight < 1, candidates: Math.max(1, Math.round(1 / weight)) }));
  return { symbol, resolved: targets.map((t) => ix.code.units[t]!.id), not_found: targets.length === 0, callees: list.slice(0, limit), total: list.length };
}

export function blast(ix: IndexStore, symbols: string[], depth: number, limit: number) {
  const focus = symbols.map((s) => s.trim()).filter(Boolean);
  if (focus.length === 0) throw new BlastRadiusInputError('gc_blast_radius requires focus_symbol');
  const r = ix.code.blastRadius(focus, depth);
  return {
    ...r,
    dependents_total: r.dependents.length,
    dependencies_total: r.dependencies.length,
    dependents: r.dependents.slice(0, limit),
    dependencies: r.dependencies.slice(0, limit),
    truncated: r.dependents.length > limit || r.dependencies.length > limit,
    depth,
  };
}

export function impact(ix: IndexStore, symbols: string[], depth: number, limit: number) {
  const focus = symbols.map((s) => s.trim()).filter(Boolean);
  if (focus.length === 0) throw new BlastRadiusInputError('gc_impact requires at least one symbol');
  const r = ix.code.blastRadius(focus, depth);
  const byFile = new Map<string, { path: string; units: number; nearest: number }>();
  for (const d of r.dependents) {
    const e = byFile.get(d.path) ?? { path: d.path, units: 0, nearest: d.distance };
    e.units++;
    e.nearest = Math.min(e.nearest, d.distance);
    byFile.set(d.path, e);
  }
  const direct = r.dependents.filter((d) => d.distance === 1);
  return {
    focus: r.focus,
    resolved: r.resolved,
    not_found: r.not_found,
    result_incomplete: r.result_incomplete,
    depth,
    direct_dependents: direct.length,
    dependents_total: r.dependents.length,
    dependents: r.dependents.slice(0, limit),
    truncated: r.dependents.length > limit,
    files: [...byFile.values()].sort((a, b) => a.nearest - b.nearest || b.units - a.units || a.path.localeCompare(b.path)),
  };
}

export function source(ix: IndexStore, symbol: string, maxChars: number, limit: number) {
  const hits = resolve(ix, symbol);
  const sources = hits.slice(0, limit).map((i) => {
    const u = ix.code.units[i]!;
    const text = ix.code.analyses[ix.code.table.fileOf[i]!]!.content.slice(u.start, u.end);
    return { ...ix.info(i), text: text.length > maxChars ? text.slice(0, maxChars) : text, truncated: text.length > maxChars, chars: text.length };
  });
  return { symbol, sources, total: hits.length, ambiguous: hits.length > 1, not_found: hits.length === 0 };
}

export function deadCode(ix: IndexStore, pathPrefix: string | null, limit: number) {
  // Names module-level code calls or mentions (route tables, registrations, `main()`) are in use.
  const moduleNames = new Set<string>();
  for (const a of ix.code.analyses as RepoFileAnalysis[]) for (const n of [...(a.module?.calls ?? []), ...(a.module?.identifiers ?? [])]) moduleNames.add(n);
  const all = ix.code.deadCode().filter((d) => (!pathPrefix || d.path.startsWith(pathPrefix)) && !moduleNames.has(d.name));
  return { candidates: all.slice(0, limit).map((d) => ({ ...d, signature: clip(d.signature, 300)!, doc: null })), total: all.length, truncated: all.length > limit };
}

/**
 * BM25 over identifiers, names, docstrings and paths; with `dense` (unit, cosine) pairs from the
 * embeddings, the two rankings are fused by RRF, lexical evidence leading (SEARCH_RRF_WEIGHTS).
 */
export function search(ix: IndexStore, query: string, limit: number, dense?: ReadonlyArray<[number, number]>, weights: { lexical: number; dense: number } = SEARCH_RRF_WEIGHTS) {
  const hits = ix.look.bm25().search(query);
  if (!dense) {
    return {
      query,
      mode: 'lexical' as const,
      results: hits.slice(0, limit).map(([i, score]) => ({ ...ix.info(i), score: Number(score.toFixed(4)), bm25: Number(score.toFixed(4)), similarity: null })),
      total: hits.length,
    };
  }
  const n = ix.code.units.length;
  const fused = reciprocalRankFusion([hits.map(([i]) => i), dense.map(([i]) => i)], n, RRF_K, [weights.lexical, weights.dense]);
  const bm25 = new Map(hits);
  const sim = new Map(dense);
  const ids = [...new Set([...bm25.keys(), ...sim.keys()])].sort((a, b) => fused[b]! - fused[a]! || a - b);
  return {
    query,
    mode: 'hybrid' as const,
    results: ids.slice(0, limit).map((i) => {
      const b = bm25.get(i);
      const c = sim.get(i);
      return { ...ix.info(i), score: Number((fused[i]! * 1000).toFixed(4)), bm25: b === undefined ? null : Number(b.toFixed(4)), similarity: c === undefined ? null : Number(c.toFixed(4)) };
    }),
    total: ids.length,
  };
}

/** Ids of every unit reached from `focus` (for tests: reach over the current graph). */
export function reachIds(ix: IndexStore, focus: string, reverse: boolean): string[] {
  const seeds = resolve(ix, focus);
  return reach(ix.code.table, ix.code.edges, seeds, reverse).map((r) => ix.code.units[r.unit]!.id);
}

/** Every edge as `from -> to kind weight` (tests compare incremental and full builds). */
export function edgeList(ix: IndexStore): string[] {
  const { units, edges } = ix.code;
  return edges.map((e) => `${units[e.from]!.id} -> ${units[e.to]!.id} ${e.kind} ${e.weight.toFixed(6)}`).sort();
}
