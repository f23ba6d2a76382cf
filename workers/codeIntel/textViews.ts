// The index as text for an agent within a token budget: the personalised repo map, chosen symbols
// and files rendered (gc_context_render), and the repository capsule.
import { adjacency, CODE_PAGERANK } from '../code/graph.js';
import { structuralFromIndex } from '../code/structural.js';
import { renderBudget, signatureText } from '../code/render.js';
import { indentAt } from '../code/text.js';
import { countTokens } from '../shared/tokens.js';
import { pagerank } from '../shared/pagerank.js';
import type { RepoFileAnalysis } from './tasks.js';
import type { IndexStore } from './store.js';
import { fileIndex, resolve } from './resolve.js';
import { search } from './queries.js';
import { summary } from './graphViews.js';

/** Personalised PageRank: teleports land on the units of the focus files and the focus symbols (and their members). */
function personalised(ix: IndexStore, focusFiles: string[], focusSymbols: string[]) {
  const n = ix.code.units.length;
  const p = new Float64Array(n);
  const notFoundFiles: string[] = [];
  const notFoundSymbols: string[] = [];
  for (const path of focusFiles) {
    const f = fileIndex(ix, path);
    if (f < 0) {
      notFoundFiles.push(path);
      continue;
    }
    const base = ix.look.unitIndex(f, 0);
    for (let j = 0; j < ix.code.analyses[f]!.units.length; j++) p[base + j] = 1;
  }
  const resolvedSymbols: string[] = [];
  for (const s of focusSymbols) {
    const hits = resolve(ix, s);
    if (hits.length === 0) notFoundSymbols.push(s);
    else resolvedSymbols.push(s);
    for (const i of hits) {
      p[i] = 1;
      for (const c of ix.look.childrenOf(i)) p[c] = 1;
    }
  }
  const any = p.some((x) => x > 0);
  const rank = any ? pagerank(adjacency(n, ix.code.edges), { ...CODE_PAGERANK, personalization: p }) : undefined;
  return { rank, notFoundFiles, notFoundSymbols, resolvedSymbols };
}

export function repoMap(ix: IndexStore, opts: { query: string | null; focus_files: string[]; focus_symbols: string[]; token_budget: number }) {
  const { rank, notFoundFiles, notFoundSymbols, resolvedSymbols } = personalised(ix, opts.focus_files, opts.focus_symbols);
  const r = structuralFromIndex(ix.code, { query: opts.query, token_budget: opts.token_budget, focus_symbols: resolvedSymbols, rank });
  return {
    map: r.output,
    token_budget: r.token_budget,
    map_tokens: r.compressed_tokens,
    repository_tokens: r.original_tokens,
    files: r.files,
    units: r.units,
    personalised: rank !== undefined,
    query: r.query,
    ranking: r.ranking.slice(0, 30).map((x) => ({ id: x.id, path: x.path, name: x.name, kind: x.kind, start_line: x.start_line, rank: x.rank, rendered: x.rendered, pagerank: x.signals.pagerank })),
    not_found: [...notFoundFiles, ...notFoundSymbols],
    result_incomplete: notFoundFiles.length + notFoundSymbols.length > 0,
  };
}

/** A unit's source as a reader sees it: its indentation restored, its doc comment above (non-Python). */
function readerText(ix: IndexStore, i: number): string {
  const u = ix.code.units[i]!;
  const a = ix.code.analyses[ix.code.table.fileOf[i]!]!;
  const doc = a.language !== 'python' && u.doc ? `${indentAt(a.content, u.start)}${u.doc.trim()}\n` : '';
  return `${doc}${indentAt(a.content, u.start)}${a.content.slice(u.start, u.end)}`;
}

/**
 * gc_context_render: the chosen symbols and files rendered into token_budget, in the order given.
 * Each symbol in full when it fits, else its signature; each file whole when it fits, else its
 * imports and definitions by PageRank (full, signatures, names: the repo map's renderer over that
 * file alone); with include_dependencies, signatures of what the chosen symbols call, while room remains.
 */
export function contextRender(ix: IndexStore, opts: { symbols: string[]; files: string[]; token_budget: number; include_dependencies: boolean }) {
  const budget = opts.token_budget;
  const parts: string[] = [];
  const items: Array<{ kind: 'symbol' | 'file' | 'dependency'; ref: string; id: string | null; path: string; start_line: number; end_line: number; tier: 'full' | 'signature' | 'skeleton' | 'omitted'; tokens: number }> = [];
  const notFound: string[] = [];
  let used = 0;
  const taken = new Set<number>();
  // Each piece also pays for the newline that joins it to the next.
  const fits = (t: number) => used + t + 1 <= budget;
  // A unit is covered when it or an enclosing unit was rendered in full (a class's signature does not show its methods).
  const covered = (i: number) => {
    for (let p = i; p >= 0; p = ix.code.units[p]!.parent) if (taken.has(p)) return true;
    return false;
  };
  const shown = new Set<number>();
  let dependenciesOmitted = 0;
  const place = (kind: 'symbol' | 'dependency', ref: string, i: number, allowFull: boolean) => {
    const u = ix.code.units[i]!;
    const path = ix.code.paths[ix.code.table.fileOf[i]!]!;
    const base = { kind, ref, id: u.id, path, start_line: u.startLine, end_line: u.endLine };
    if (covered(i) || shown.has(i)) return;
    const header = `--- ${path}:${u.startLine}-${u.endLine} ${u.qualified} ---\n`;
    if (allowFull) {
      const full = header + readerText(ix, i) + '\n';
      const t = countTokens(full);
      if (fits(t)) {
        parts.push(full);
        used += t + 1;
        taken.add(i);
        items.push({ ...base, tier: 'full', tokens: t });
        return;
      }
    }
    const sig = header + signatureText(ix.code, i) + '\n';
    const t = countTokens(sig);
    if (fits(t)) {
      parts.push(sig);
      used += t + 1;
      shown.add(i);
      items.push({ ...base, tier: 'signature', tokens: t });
    } else if (kind === 'dependency') dependenciesOmitted++;
    else items.push({ ...base, tier: 'omitted', tokens: 0 });
  };
  const chosen: number[] = [];
  for (const s of opts.symbols) {
    const hits = resolve(ix, s);
    if (hits.length === 0) notFound.push(s);
    for (const i of hits) {
      chosen.push(i);
      place('symbol', s, i, true);
    }
  }
  for (const path of opts.files) {
    const f = fileIndex(ix, path);
    if (f < 0) {
      notFound.push(path);
      continue;
    }
    const a = ix.code.analyses[f]!;
    const whole = `--- ${a.path} ---\n${a.content.replace(/\s+$/, '')}\n`;
    const t = countTokens(whole);
    if (fits(t)) {
      parts.push(whole);
      used += t + 1;
      items.push({ kind: 'file', ref: path, id: null, path: a.path, start_line: 1, end_line: a.lines, tier: 'full', tokens: t });
      const base = ix.look.unitIndex(f, 0);
      for (let j = 0; j < a.units.length; j++) taken.add(base + j);
      continue;
    }
    const remaining = budget - used - 1;
    const base = ix.look.unitIndex(f, 0);
    const order = Array.from({ length: a.units.length }, (_, j) => base + j).filter((i) => !covered(i));
    const rank = ix.code.rank;
    order.sort((x, y) => rank[y]! - rank[x]!);
    const { output } = remaining > 16 && order.length ? renderBudget(ix.code, order, remaining, 'o200k_base') : { output: '' };
    const ot = output ? countTokens(output) : 0;
    if (output && fits(ot)) {
      parts.push(output);
      used += ot + 1;
      items.push({ kind: 'file', ref: path, id: null, path: a.path, start_line: 1, end_line: a.lines, tier: 'skeleton', tokens: ot });
    } else items.push({ kind: 'file', ref: path, id: null, path: a.path, start_line: 1, end_line: a.lines, tier: 'omitted', tokens: 0 });
  }
  if (opts.include_dependencies && chosen.length) {
    const set = new Set(chosen);
    const deps: number[] = [];
    for (const e of ix.code.edges) if (set.has(e.from) && !set.has(e.to) && !deps.includes(e.to)) deps.push(e.to);
    const rank = ix.code.rank;
    deps.sort((x, y) => rank[y]! - rank[x]!);
    for (const d of deps) place('dependency', ix.code.units[d]!.id, d, false);
  }
  let rendered = parts.join('\n');
  // Token counts of the pieces are an estimate of the joined text; drop trailing pieces if the join pushed it over.
  while (parts.length > 0 && countTokens(rendered) > budget) {
    parts.pop();
    const last = [...items].reverse().find((x) => x.tier !== 'omitted');
    if (last) Object.assign(last, { tier: 'omitted', tokens: 0 });
    rendered = parts.join('\n');
  }
  return {
    rendered,
    tokens: rendered ? countTokens(rendered) : 0,
    token_budget: budget,
    items,
    omitted: items.filter((x) => x.tier === 'omitted').map((x) => x.ref),
    /** Dependencies that did not fit (not listed in items). */
    dependencies_omitted: dependenciesOmitted,
    not_found: notFound,
    result_incomplete: notFound.length > 0 || items.some((x) => x.tier === 'omitted'),
  };
}

/**
 * gc_agent_capsule: a compact brief of the repository for an agent, within token_budget:
 * shape (files, languages, definitions), the central files, the key symbols with their
 * signatures and first doc line, entry points, external modules, and with a query the matching
 * definitions. Sections are added in that order while they fit; what did not fit is named.
 */
export function capsule(ix: IndexStore, opts: { token_budget: number; query: string | null; top: number }) {
  const s = summary(ix, opts.top);
  const { units, table } = ix.code;
  const budget = opts.token_budget;
  const out: string[] = [];
  const included: string[] = [];
  const dropped: string[] = [];
  let used = 0;
  const add = (name: string, lines: string[]) => {
    if (lines.length <= 1) return;
    // A section shrinks line by line until it fits; its heading alone is not worth adding.
    let take = lines.length;
    let text = `${lines.join('\n')}\n`;
    let t = countTokens(text);
    while (used + t + 1 > budget && take > 2) {
      take--;
      text = `${lines.slice(0, take).join('\n')}\n`;
      t = countTokens(text);
    }
    if (used + t + 1 > budget) {
      dropped.push(name);
      return;
    }
    out.push(text);
    used += t + 1;
    included.push(take < lines.length ? `${name} (${take - 1} of ${lines.length - 1})` : name);
  };
  const langs = Object.entries(s.languages).sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l} ${n}`).join(', ');
  add('shape', [
    '# Repository capsule',
    `${s.files} files (${langs}), ${s.lines} lines; ${s.units} definitions (${Object.entries(s.units_by_kind).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`).join(', ')}); ${s.edges} call/reference edges, ${s.import_edges} resolved imports.`,
  ]);
  if (opts.query) {
    const hits = search(ix, opts.query, Math.min(opts.top, 10)).results;
    add(`query`, [`## Matching "${opts.query.slice(0, 80)}"`, ...hits.map((h) => `- ${h.path}:${h.start_line} ${h.kind} ${h.qualified}`)]);
  }
  const unitsPerFile = new Map<string, number>();
  for (const a of ix.code.analyses) unitsPerFile.set(a.path, a.units.length);
  add('central files', ['## Central files (PageRank)', ...s.top_files.map((f) => `- ${f.path} (${unitsPerFile.get(f.path) ?? 0} definitions, imported by ${f.imported_by})`)]);
  const firstDoc = (d: string | null) => {
    if (!d) return '';
    const line = d.replace(/^[\s/*#"'`]+/, '').split('\n')[0]!.replace(/["'`*/\s]+$/, '').trim();
    return line ? ` — ${line.slice(0, 100)}` : '';
  };
  const oneLine = (sig: string) => sig.replace(/\s+/g, ' ').trim().slice(0, 160);
  add('key symbols', ['## Key symbols', ...s.top_symbols.map((t) => {
    const i = ix.unitById(t.id);
    return `- ${t.path}:${t.start_line} \`${oneLine(units[i]!.signature || t.name)}\`${firstDoc(units[i]!.doc)}`;
  })]);
  // Entry points: module-level code that calls the repository's own definitions (main blocks, route tables, CLIs).
  const entries: string[] = [];
  for (const a of ix.code.analyses as RepoFileAnalysis[]) {
    const calls = (a.module?.calls ?? []).filter((c) => table.byName.has(c));
    if (calls.length && /(^|\/)(main|cli|app|server|index|__main__|manage)\.[a-z]+$/.test(a.path)) entries.push(`- ${a.path}: calls ${calls.slice(0, 5).join(', ')}`);
  }
  add('entry points', ['## Entry points', ...entries.slice(0, opts.top)]);
  // Relative imports the resolver could not place are the repository's own files, not external modules.
  const external = new Map<string, number>();
  for (const pf of ix.code.imports.perFile) for (const m of pf.unresolved) if (!m.startsWith('.')) external.set(m, (external.get(m) ?? 0) + 1);
  const ext = [...external].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, opts.top);
  add('external modules', ['## External modules', ...ext.map(([m, n]) => `- ${m} (${n} files)`)]);
  add('next', ['## Next', '- gc_repo_map {query, focus_files} for a ranked map; gc_defs / gc_refs / gc_callers for one symbol; gc_edit_plan {request} before a change.']);
  const capsule = out.join('\n');
  return { capsule, tokens: countTokens(capsule), token_budget: budget, sections: included, dropped_sections: dropped, files: s.files, units: s.units };
}
