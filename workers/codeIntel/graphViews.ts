// The index as a graph to look at: the unit and file graphs (JSON, GraphML, one HTML page) and the
// repository summary (sizes, languages, the most central symbols and files).
import { toGraphml, toHtml } from './exports.js';
import type { IndexStore } from './store.js';

/** `a.localeCompare(b)` (the same collation), without a collator built per call: sorts of thousands of names. */
const COLLATE = new Intl.Collator().compare;

/** The unit graph (definitions, call/reference edges) and the file graph (resolved imports). */
export function graph(ix: IndexStore, opts: { path_prefix: string | null; max_nodes: number }) {
  const { units, table, edges, paths, imports } = ix.code;
  const keep = (i: number) => !opts.path_prefix || paths[table.fileOf[i]!]!.startsWith(opts.path_prefix);
  const selected: number[] = [];
  for (let i = 0; i < units.length && selected.length < opts.max_nodes; i++) if (keep(i)) selected.push(i);
  const inSet = new Set(selected);
  const rank = ix.code.rank;
  const nodes = selected.map((i) => {
    const u = units[i]!;
    return { id: u.id, kind: u.kind, name: u.qualified, path: paths[table.fileOf[i]!]!, start_line: u.startLine, end_line: u.endLine, exported: u.exported, pagerank: Number(rank[i]!.toExponential(4)) };
  });
  const graphEdges = edges.filter((e) => inSet.has(e.from) && inSet.has(e.to)).map((e) => ({ source: units[e.from]!.id, target: units[e.to]!.id, kind: e.kind, weight: Number(e.weight.toFixed(4)) }));
  const files = paths.filter((p) => !opts.path_prefix || p.startsWith(opts.path_prefix));
  const fileSet = new Set(files);
  const fileEdges = imports.perFile.flatMap((pf) => (fileSet.has(pf.path) ? pf.resolved.filter((t) => fileSet.has(t)).map((t) => ({ source: pf.path, target: t, kind: 'import' as const })) : []));
  return {
    nodes,
    edges: graphEdges,
    files: files.map((p) => {
      const a = ix.code.analyses[ix.look.pathIndex(p)]!;
      return { path: p, language: a.language, parser: a.parser, units: a.units.length, lines: a.lines };
    }),
    file_edges: fileEdges,
    truncated: selected.length < units.filter((_, i) => keep(i)).length,
    total_nodes: units.length,
    total_edges: edges.length,
  };
}

export function summary(ix: IndexStore, top: number) {
  const { units, table, edges, paths, analyses, imports } = ix.code;
  const languages: Record<string, number> = {};
  const parsers: Record<string, number> = {};
  let parseErrorFiles = 0;
  for (const a of analyses) {
    languages[a.language] = (languages[a.language] ?? 0) + 1;
    parsers[a.parser] = (parsers[a.parser] ?? 0) + 1;
    if (a.parseErrors > 0) parseErrorFiles++;
  }
  const kinds: Record<string, number> = {};
  for (const u of units) kinds[u.kind] = (kinds[u.kind] ?? 0) + 1;
  const edgeKinds: Record<string, number> = {};
  for (const e of edges) edgeKinds[e.kind] = (edgeKinds[e.kind] ?? 0) + 1;
  const rank = ix.code.rank;
  // The `top` most central units (as a stable sort by rank would order them), without sorting all.
  const order: number[] = [];
  for (let i = 0; i < units.length; i++) {
    if (order.length >= top && !(rank[i]! > rank[order[order.length - 1]!]!)) continue;
    let k = order.length;
    while (k > 0 && rank[order[k - 1]!]! < rank[i]!) k--;
    order.splice(k, 0, i);
    if (order.length > top) order.pop();
  }
  const importedBy = new Map<string, number>();
  for (const pf of imports.perFile) for (const t of pf.resolved) importedBy.set(t, (importedBy.get(t) ?? 0) + 1);
  const perFile = new Float64Array(paths.length);
  const hasUnits = new Uint8Array(paths.length);
  for (let i = 0; i < units.length; i++) {
    const f = table.fileOf[i]!;
    perFile[f] = perFile[f]! + rank[i]!;
    hasUnits[f] = 1;
  }
  const fileRank = new Map<string, number>();
  paths.forEach((p, f) => {
    if (hasUnits[f]) fileRank.set(p, perFile[f]!);
  });
  const unresolvedModules = new Map<string, number>();
  for (const pf of imports.perFile) for (const m of pf.unresolved) unresolvedModules.set(m, (unresolvedModules.get(m) ?? 0) + 1);
  return {
    files: analyses.length,
    lines: analyses.reduce((s, a) => s + a.lines, 0),
    languages,
    parsers,
    files_with_parse_errors: parseErrorFiles,
    units: units.length,
    units_by_kind: kinds,
    edges: edges.length,
    edges_by_kind: edgeKinds,
    import_edges: imports.perFile.reduce((s, pf) => s + pf.resolved.length, 0),
    top_symbols: order.slice(0, top).map((i) => ({ id: units[i]!.id, name: units[i]!.qualified, kind: units[i]!.kind, path: paths[table.fileOf[i]!]!, start_line: units[i]!.startLine, pagerank: Number(rank[i]!.toExponential(4)) })),
    top_files: [...fileRank].sort((a, b) => b[1] - a[1]).slice(0, top).map(([path, score]) => ({ path, pagerank: Number(score.toExponential(4)), imported_by: importedBy.get(path) ?? 0 })),
    most_imported_files: [...importedBy].sort((a, b) => b[1] - a[1] || COLLATE(a[0], b[0])).slice(0, top).map(([path, count]) => ({ path, imported_by: count })),
    external_modules: [...unresolvedModules].sort((a, b) => b[1] - a[1] || COLLATE(a[0], b[0])).slice(0, top).map(([module, count]) => ({ module, files: count })),
  };
}

/** export_graph_graphml: the graph of export_graph_json as GraphML (files and imports too with include_files). */
export function graphml(ix: IndexStore, opts: { path_prefix: string | null; max_nodes: number; include_files: boolean }) {
  const g = graph(ix, { path_prefix: opts.path_prefix, max_nodes: opts.max_nodes });
  const graphml = toGraphml(g, { include_files: opts.include_files });
  return {
    graphml,
    nodes: g.nodes.length + (opts.include_files ? g.files.length : 0),
    edges: g.edges.length + (opts.include_files ? g.file_edges.length + g.nodes.length : 0),
    truncated: g.truncated,
    total_nodes: g.total_nodes,
    total_edges: g.total_edges,
    bytes: Buffer.byteLength(graphml),
  };
}

/** visualize_graph_html: the max_nodes most central definitions (PageRank) and the edges among them, as one self-contained page. */
export function visualize(ix: IndexStore, opts: { path_prefix: string | null; max_nodes: number; title: string | null }) {
  const { units, table, edges, paths } = ix.code;
  const rank = ix.code.rank;
  const keep = (i: number) => !opts.path_prefix || paths[table.fileOf[i]!]!.startsWith(opts.path_prefix);
  const candidates = Array.from({ length: units.length }, (_, i) => i).filter(keep);
  const selected = candidates.sort((a, b) => rank[b]! - rank[a]! || a - b).slice(0, opts.max_nodes);
  const inSet = new Set(selected);
  const nodes = selected.map((i) => ({ id: units[i]!.id, label: units[i]!.qualified, kind: units[i]!.kind, path: paths[table.fileOf[i]!]!, start_line: units[i]!.startLine, pagerank: Number(rank[i]!.toExponential(4)) }));
  const shown = edges.filter((e) => inSet.has(e.from) && inSet.has(e.to) && e.from !== e.to).map((e) => ({ source: units[e.from]!.id, target: units[e.to]!.id, kind: e.kind, weight: Number(e.weight.toFixed(4)) }));
  const scopeEdges = edges.filter((e) => keep(e.from) && keep(e.to)).length;
  const html = toHtml({ title: opts.title ?? `Code graph${opts.path_prefix ? ` of ${opts.path_prefix}` : ''}`, nodes, edges: shown, total_nodes: candidates.length, total_edges: scopeEdges });
  return { html, nodes: nodes.length, edges: shown.length, total_nodes: candidates.length, total_edges: scopeEdges, truncated: nodes.length < candidates.length, bytes: Buffer.byteLength(html) };
}
