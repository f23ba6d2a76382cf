// gc_scan over the index: the rule packs' findings of every indexed file (scan.ts), filtered and counted.
import { PACKS, rulesOf, SCAN_VERSION, scanFile, SEVERITY_ORDER, type Pack, type ScanFinding, type Severity } from './scan.js';
import type { RepoFileAnalysis } from './tasks.js';
import type { IndexStore } from './store.js';

/** gc_scan: the rule packs over every indexed file's text (workers/codeIntel/scan.ts). */
export function scan(ix: IndexStore, opts: { packs: Pack[] | null; rules: string[] | null; path_prefix: string | null; min_severity: Severity; suppressed: string[]; limit: number }) {
  const t0 = performance.now();
  const packs = opts.packs && opts.packs.length ? opts.packs : [...PACKS];
  const suppressed = new Set(opts.suppressed);
  const floor = SEVERITY_ORDER[opts.min_severity];
  const all: ScanFinding[] = [];
  let scanned = 0;
  let rescanned = 0;
  for (const a of ix.code.analyses) {
    if (opts.path_prefix && !a.path.startsWith(opts.path_prefix)) continue;
    scanned++;
    // Findings computed in the pool at ingest when the rules are the same; else scanned here once and cached.
    const stored = (a as RepoFileAnalysis).scan;
    let found = stored?.version === SCAN_VERSION ? stored.findings : ix.scanCache.get(a);
    if (!found) {
      ix.scanCache.set(a, (found = scanFile(a.path, a.language, a.content)));
      rescanned++;
    }
    for (const f of found) {
      if (!packs.includes(f.pack) || SEVERITY_ORDER[f.severity] < floor) continue;
      if (opts.rules && opts.rules.length && !opts.rules.includes(f.rule_id)) continue;
      all.push({ ...f, matches: f.matches.map((m) => ({ ...m })), files: [...f.files], status: suppressed.has(f.fingerprint) ? 'suppressed' : 'open' });
    }
  }
  all.sort((x, y) => SEVERITY_ORDER[y.severity] - SEVERITY_ORDER[x.severity] || x.path.localeCompare(y.path) || x.matches[0]!.line - y.matches[0]!.line || x.rule_id.localeCompare(y.rule_id));
  const open = all.filter((f) => f.status === 'open');
  const bySeverity: Record<string, number> = {};
  const byRule: Record<string, number> = {};
  for (const f of open) {
    bySeverity[f.severity] = (bySeverity[f.severity] ?? 0) + 1;
    byRule[f.rule_id] = (byRule[f.rule_id] ?? 0) + 1;
  }
  return {
    packs,
    rules: rulesOf(packs).map((r) => r.id),
    files_scanned: scanned,
    findings: all.slice(0, opts.limit),
    total: all.length,
    open: open.length,
    suppressed: all.length - open.length,
    truncated: all.length > opts.limit,
    by_severity: bySeverity,
    by_rule: byRule,
    /** Files scanned in this call (no findings from the ingest under the current rules, not cached yet). */
    rescanned_files: rescanned,
    timings_ms: { scan: Math.round(performance.now() - t0) },
  };
}
