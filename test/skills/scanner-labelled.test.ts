// The scanner on the labelled set (bench/skills/): 30 malicious SKILL.md texts (must be CRITICAL) and 30
// benign ones (must not be), in three splits. Rules were chosen on dev; test and holdout figures as
// first measured are in docs/skills.md. The bar: recall >= 0.9 on every split and overall, and no
// benign skill CRITICAL.
import { describe, expect, it } from 'vitest';
import { scanSkill } from '../../workers/skills/scan.js';
import { evaluate, loadLabelled } from './labelled.js';

const all = loadLabelled();

describe('skill scanner on the labelled set', () => {
  it('the set is at least 40 realistic skills, half malicious, with every category represented', () => {
    expect(all.length).toBeGreaterThanOrEqual(40);
    const malicious = all.filter((c) => c.label === 'malicious');
    expect(malicious.length * 2).toBe(all.length);
    const kinds = new Set(malicious.flatMap((c) => c.kinds ?? []));
    for (const k of ['secret', 'shell_injection', 'exfiltration', 'prompt_injection', 'dangerous_install']) expect(kinds, k).toContain(k);
    for (const c of all) expect(c.body.length, c.file).toBeGreaterThan(150);
  });

  for (const split of ['dev', 'test', 'holdout', 'all'] as const) {
    it(`${split}: recall >= 0.9 on CRITICAL cases and no benign skill CRITICAL`, () => {
      const cases = split === 'all' ? all : all.filter((c) => c.split === split);
      const f = evaluate(cases);
      console.log(`[skills scanner] ${split}: n=${f.n} tp=${f.tp} fn=${f.fn} fp=${f.fp} tn=${f.tn} precision=${f.precision.toFixed(3)} recall=${f.recall.toFixed(3)}${f.missed.length ? ` missed=${f.missed.join(',')}` : ''}`);
      expect(f.falseAlarms).toEqual([]);
      expect(f.recall).toBeGreaterThanOrEqual(0.9);
    });
  }

  it('each malicious case is caught for the reason it was written (a CRITICAL finding of its labelled category)', () => {
    const wrong: string[] = [];
    for (const c of all.filter((x) => x.label === 'malicious')) {
      const r = scanSkill({ body: c.body, install_snippet: c.install_snippet, name: c.name, tagline: c.tagline });
      const cats = new Set(r.findings.filter((f) => f.severity === 'CRITICAL').map((f) => f.category));
      const expected = c.kinds ?? [];
      // An install-snippet case may be caught by a shell rule on the snippet: same place, same harm.
      const hit = expected.some((k) => cats.has(k as never) || (k === 'dangerous_install' && r.findings.some((f) => f.location === 'install_snippet' && f.severity === 'CRITICAL')));
      if (!hit) wrong.push(`${c.file}: expected ${expected.join('/')}, CRITICAL in ${[...cats].join('/') || 'none'}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the scan is linear: a body 4x longer takes well under 16x the time, even on hostile lines', () => {
    const hostile = ['curl '.repeat(2000), `eval ${'$'.repeat(3000)}`, `${'a'.repeat(5000)}@`, `ignore ${'previous '.repeat(800)}`, '<!--'.repeat(1000), 'sk-'.repeat(3000)].join('\n');
    const time = (n: number) => {
      const body = Array.from({ length: n }, () => hostile).join('\n');
      const t0 = performance.now();
      scanSkill({ body });
      return performance.now() - t0;
    };
    time(1);
    const small = Math.max(time(4), 1);
    const large = time(16);
    expect(large / small).toBeLessThan(16);
  });
});
