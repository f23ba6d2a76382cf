// gc_scan's rule packs on their own: each pack hits its positive fixture and stays silent on a benign
// look-alike; fingerprints are equal across runs, after an unrelated line is inserted above, and after
// re-indentation; secrets are masked in the evidence.
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../workers/code/index.js';
import { RepoIndex } from '../../workers/codeIntel/repoIndex.js';
import { PACKS, SCAN_VERSION, scanFile } from '../../workers/codeIntel/scan.js';
import { codeIntelTasks, type RepoFileAnalysis } from '../../workers/codeIntel/tasks.js';
import { BENIGN, POSITIVE } from './scanFixtures.js';

const lang = (path: string) => analyzeFile({ path, content: 'x' }).language;

describe('gc_scan rule packs', () => {
  for (const [name, fx] of Object.entries(POSITIVE)) {
    it(`${name}: the positive fixture raises ${fx.rules.join(', ')}`, () => {
      const findings = scanFile(fx.path, lang(fx.path), fx.content);
      const rules = new Set(findings.map((f) => f.rule_id));
      for (const r of fx.rules) expect(rules, `${r} in ${JSON.stringify(findings, null, 1)}`).toContain(r);
      // Nothing outside what the fixture is about.
      for (const r of rules) expect(fx.rules, `unexpected ${r}`).toContain(r);
      for (const f of findings) {
        expect(f).toMatchObject({ path: fx.path, files: [fx.path], status: 'open' });
        expect(f.fingerprint).toMatch(/^[0-9a-f]{32}$/);
        expect(f.matches.length).toBeGreaterThan(0);
        expect(fx.content.split('\n')[f.matches[0]!.line - 1]!.replace(/\s+/g, ' ').trim().length).toBeGreaterThan(0);
        expect(['low', 'medium', 'high', 'critical']).toContain(f.severity);
        expect(f.message.length).toBeGreaterThan(10);
      }
    });
  }

  for (const [name, fx] of Object.entries(BENIGN)) {
    it(`${name}: the benign look-alike stays silent`, () => {
      const findings = scanFile(fx.path, lang(fx.path), fx.content);
      expect(findings, JSON.stringify(findings, null, 1)).toEqual([]);
    });
  }

  it('every pack has a positive fixture', () => {
    const packs = new Set(Object.values(POSITIVE).flatMap((fx) => fx.rules.map((r) => r.split('.')[0])));
    for (const p of PACKS) expect(packs).toContain(p);
  });

  it('secrets are masked in the evidence', () => {
    const fx = POSITIVE.secrets!;
    const findings = scanFile(fx.path, 'python', fx.content);
    const secretValues = ['Tr0ub4dor&3xQ9!zP', 'Q3ZT7N2WB5XK4RLM', 'x7Tq2LmN9vR4sW8yK1bZ3cD6fH0jP5gA2eUi'];
    for (const f of findings) for (const v of secretValues) expect(f.evidence).not.toContain(v);
  });

  it('fingerprints: equal across runs, after an unrelated line is inserted above, and after re-indenting', () => {
    const fx = POSITIVE.injection!;
    const first = scanFile(fx.path, 'python', fx.content);
    const second = scanFile(fx.path, 'python', fx.content);
    expect(second.map((f) => f.fingerprint)).toEqual(first.map((f) => f.fingerprint));
    const shifted = `"""Queries."""\nimport logging\n\nlog = logging.getLogger(__name__)\n${fx.content}`;
    const after = scanFile(fx.path, 'python', shifted);
    expect(after.map((f) => f.fingerprint).sort()).toEqual(first.map((f) => f.fingerprint).sort());
    // Same findings, new line numbers.
    expect(after.map((f) => f.matches[0]!.line)).toEqual(first.map((f) => f.matches[0]!.line + 4));
    const reindented = fx.content.replace(/^ {4}/gm, '\t');
    expect(scanFile(fx.path, 'python', reindented).map((f) => f.fingerprint).sort()).toEqual(first.map((f) => f.fingerprint).sort());
    // Another file with the same line is another finding.
    const elsewhere = scanFile('other/queries.py', 'python', fx.content);
    const firstSet = new Set(first.map((f) => f.fingerprint));
    expect(elsewhere.filter((f) => firstSet.has(f.fingerprint))).toEqual([]);
  });

  it('RepoIndex.scan: packs, severity floor, suppressed fingerprints, cache follows file changes', () => {
    const idx = new RepoIndex();
    const files = [...Object.values(POSITIVE), ...Object.values(BENIGN)];
    idx.apply(files.map((f) => analyzeFile({ path: f.path, content: f.content })), []);
    const all = idx.scan({ packs: null, rules: null, path_prefix: null, min_severity: 'low', suppressed: [], limit: 1000 });
    expect(all.files_scanned).toBe(files.length);
    expect(new Set(all.findings.map((f) => f.path))).toEqual(new Set(Object.values(POSITIVE).map((f) => f.path)));
    const only = idx.scan({ packs: ['deserialization'], rules: null, path_prefix: null, min_severity: 'low', suppressed: [], limit: 1000 });
    expect(only.findings.every((f) => f.pack === 'deserialization')).toBe(true);
    const high = idx.scan({ packs: null, rules: null, path_prefix: null, min_severity: 'high', suppressed: [], limit: 1000 });
    expect(high.findings.some((f) => f.severity === 'medium')).toBe(false);
    const fp = all.findings[0]!.fingerprint;
    const sup = idx.scan({ packs: null, rules: null, path_prefix: null, min_severity: 'low', suppressed: [fp], limit: 1000 });
    expect(sup.findings.find((f) => f.fingerprint === fp)!.status).toBe('suppressed');
    expect(sup.open).toBe(all.open - 1);
    // Fixing the file removes its finding on the next scan.
    const fixed = POSITIVE.deserialization!.content.replace('yaml.load(text)', 'yaml.safe_load(text)');
    idx.apply([analyzeFile({ path: POSITIVE.deserialization!.path, content: fixed })], []);
    const again = idx.scan({ packs: ['deserialization'], rules: null, path_prefix: 'app/', min_severity: 'low', suppressed: [], limit: 1000 });
    expect(again.findings.map((f) => f.rule_id)).toEqual(['deserialization.pickle']);
  });

  it('findings are computed with the parse in the pool and stored with the analysis; other rules are scanned again', () => {
    const files = Object.values(POSITIVE).map((f) => ({ path: f.path, content: f.content }));
    const out = codeIntelTasks.codeIntelAnalyse({ files, known: {} });
    const analyses = out.analysed.map((a) => JSON.parse(a.json) as RepoFileAnalysis);
    for (const a of analyses) {
      expect(a.scan!.version).toBe(SCAN_VERSION);
      expect(a.scan!.findings).toEqual(scanFile(a.path, a.language, a.content));
    }
    const opts = { packs: null, rules: null, path_prefix: null, min_severity: 'low' as const, suppressed: [], limit: 1000 };
    const idx = new RepoIndex();
    idx.apply(analyses, []);
    const stored = idx.scan(opts);
    expect(stored.rescanned_files).toBe(0);
    // Findings stored by an earlier build of the rules are not trusted: the thread scans again (once).
    const stale = analyses.map((a) => ({ ...a, scan: { version: 'older', findings: [] } }));
    const idx2 = new RepoIndex();
    idx2.apply(stale, []);
    const again = idx2.scan(opts);
    expect(again.rescanned_files).toBe(analyses.length);
    expect(again.findings).toEqual(stored.findings);
    expect(idx2.scan(opts).rescanned_files).toBe(0);
  });
});
