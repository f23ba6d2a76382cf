// gc_edit_plan: which files and definitions a change request touches, by BM25 seeds and their blast radius.
import { words } from '../code/bm25.js';
import { clip, type IndexStore } from './store.js';

/**
 * gc_edit_plan: for a change request, BM25 over the index (query words plus their singulars:
 * "commas" also asks for "comma") picks the definitions the text is about (seeds: at least a
 * third of the best score, at most 3 per file and 12 in all; test code counts half, so the code
 * under change comes first). The blast radius of the seeds adds the code that uses them (role
 * check, seed score × 0.5^distance); test code is role test (what to run). Files are ranked by
 * their best unit, ties by PageRank.
 */
export function editPlan(ix: IndexStore, opts: { request: string; max_files: number; max_symbols: number; depth: number }) {
  const isTest = (path: string) => /(^|\/)(tests?|__tests__|spec|testing)\/|(_test|\.test|\.spec|Test|Tests)\.[a-z]+$|(^|\/)test_[^/]*$/.test(path);
  const pathOf = (i: number) => ix.code.paths[ix.code.table.fileOf[i]!]!;
  const extra = words(opts.request)
    .map((w) => w.toLowerCase())
    .flatMap((w) => (w.length > 4 && w.endsWith('ies') ? [`${w.slice(0, -3)}y`] : w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? [w.slice(0, -1)] : []));
  const hits = ix.look.bm25().search(extra.length ? `${opts.request} ${extra.join(' ')}` : opts.request)
    .map(([i, sc]) => [i, isTest(pathOf(i)) ? sc / 2 : sc] as [number, number])
    .sort((x, y) => y[1] - x[1]);
  if (hits.length === 0) return { request: opts.request, not_found: true, seeds: 0, files: [], symbols: [], tests: [], edit_files: 0, check_files: 0 };
  const top = hits[0]![1];
  const perFile = new Map<number, number>();
  const seeds: Array<[number, number]> = [];
  for (const [i, sc] of hits) {
    if (sc < top / 3 || seeds.length >= 12) break;
    const f = ix.code.table.fileOf[i]!;
    if ((perFile.get(f) ?? 0) >= 3) continue;
    perFile.set(f, (perFile.get(f) ?? 0) + 1);
    seeds.push([i, sc]);
  }
  type Role = 'edit' | 'check' | 'test';
  const score = new Map<number, { score: number; role: Role; why: string }>();
  for (const [i, sc] of seeds) score.set(i, { score: sc / top, role: isTest(pathOf(i)) ? 'test' : 'edit', why: 'matches the request' });
  const rank = ix.code.rank;
  // Per seed, so each dependent names the seed it is reached from (the strongest one wins).
  for (const [seed, sc] of seeds) {
    for (const r of ix.look.dependentsOf(seed, opts.depth)) {
      if (ix.code.units[seed]!.parent === r.unit) continue; // a class naming its own member is not a use
      const v = (sc / top) * 0.5 ** r.distance;
      const cur = score.get(r.unit);
      if (cur && cur.why.startsWith('matches') && r.distance === 1 && !cur.why.includes('; uses')) cur.why += `; uses ${ix.code.units[seed]!.qualified}`;
      if (!cur || (!cur.why.startsWith('matches') && v > cur.score)) {
        score.set(r.unit, { score: v, role: isTest(pathOf(r.unit)) ? 'test' : 'check', why: `${r.distance === 1 ? 'uses' : `reaches (${r.distance} hops)`} ${ix.code.units[seed]!.qualified}` });
      }
    }
  }
  const ordered = [...score].sort((a, b) => b[1].score - a[1].score || rank[b[0]]! - rank[a[0]]!);
  const symbols = ordered.slice(0, opts.max_symbols).map(([i, v]) => {
    const d = ix.info(i);
    return { id: d.id, path: d.path, kind: d.kind, qualified: d.qualified, start_line: d.start_line, end_line: d.end_line, signature: clip(d.signature, 200)!, role: v.role, reason: v.why, score: Number(v.score.toFixed(4)) };
  });
  const strength: Record<Role, number> = { test: 0, check: 1, edit: 2 };
  const files = new Map<string, { path: string; score: number; role: Role; symbols: string[]; is_test: boolean }>();
  for (const [i, v] of ordered) {
    const path = pathOf(i);
    const f = files.get(path) ?? { path, score: 0, role: v.role, symbols: [], is_test: isTest(path) };
    f.score = Math.max(f.score, v.score);
    if (strength[v.role] > strength[f.role]) f.role = v.role;
    if (f.symbols.length < 8) f.symbols.push(ix.code.units[i]!.qualified);
    files.set(path, f);
  }
  const fileList = [...files.values()].sort((a, b) => b.score - a.score || a.path.localeCompare(b.path)).slice(0, opts.max_files).map((f) => ({ ...f, score: Number(f.score.toFixed(4)) }));
  return {
    request: opts.request,
    not_found: false,
    seeds: seeds.length,
    files: fileList,
    symbols,
    tests: fileList.filter((f) => f.is_test).map((f) => f.path),
    edit_files: fileList.filter((f) => f.role === 'edit').length,
    check_files: fileList.filter((f) => f.role === 'check').length,
  };
}
