// The scanner on the labelled set (bench/skills/): 50 malicious SKILL.md texts (must be CRITICAL) and 50
// benign ones (must not be), in five splits written at different times. Rules were chosen on dev;
// the first-run figures of test, holdout, holdout2 and holdout3 (each run once on rules that had not
// seen it) are in docs/skills.md. Held here so they cannot regress: on the whole set recall >= 0.9
// on CRITICAL cases and no benign skill CRITICAL in any split; every malicious skill at least HIGH
// (so none can be enabled); per split recall >= 0.8 (a split has only 6-12 malicious cases).
import { describe, expect, it } from 'vitest';
import { scanSkill, type Verdict } from '../../workers/skills/scan.js';
import { evaluate, loadLabelled } from './labelled.js';

const all = loadLabelled();
const RANK: Record<Verdict, number> = { SAFE: 0, LOW: 1, MEDIUM: 2, HIGH: 3, CRITICAL: 4 };

function report(split: string, f: ReturnType<typeof evaluate>) {
  console.log(
    `[skills scanner] ${split}: n=${f.n} tp=${f.tp} fn=${f.fn} fp=${f.fp} tn=${f.tn} precision=${f.precision.toFixed(3)} recall=${f.recall.toFixed(3)}` +
      ` malicious blocked=${f.maliciousBlocked} benign blocked=${f.benignBlocked.length}${f.missed.length ? ` missed=${f.missed.join(',')}` : ''}`,
  );
}

describe('skill scanner on the labelled set', () => {
  it('the set is at least 40 realistic skills, half malicious, with every category represented', () => {
    expect(all.length).toBeGreaterThanOrEqual(40);
    const malicious = all.filter((c) => c.label === 'malicious');
    expect(malicious.length * 2).toBe(all.length);
    const kinds = new Set(malicious.flatMap((c) => c.kinds ?? []));
    for (const k of ['secret', 'shell_injection', 'exfiltration', 'prompt_injection', 'dangerous_install']) expect(kinds, k).toContain(k);
    for (const c of all) expect(c.body.length, c.file).toBeGreaterThan(150);
  });

  it('whole set: recall >= 0.9 on CRITICAL cases, no benign skill CRITICAL, every malicious skill blocked', () => {
    const f = evaluate(all);
    report('all', f);
    expect(f.falseAlarms).toEqual([]);
    expect(f.recall).toBeGreaterThanOrEqual(0.9);
    expect(f.maliciousBlocked).toBe(f.tp + f.fn);
  });

  for (const split of ['dev', 'test', 'holdout', 'holdout2', 'holdout3'] as const) {
    it(`${split}: no benign skill CRITICAL, recall >= 0.8`, () => {
      const f = evaluate(all.filter((c) => c.split === split));
      report(split, f);
      expect(f.n).toBeGreaterThan(0);
      expect(f.falseAlarms).toEqual([]);
      expect(f.recall).toBeGreaterThanOrEqual(0.8);
    });
  }

  it('each malicious case is flagged for the reason it was written (its worst finding is of its labelled category)', () => {
    const wrong: string[] = [];
    for (const c of all.filter((x) => x.label === 'malicious')) {
      const r = scanSkill({ body: c.body, install_snippet: c.install_snippet, name: c.name, tagline: c.tagline });
      const expected = new Set(c.kinds ?? []);
      // An install-snippet case may be caught by a shell rule on the snippet: same place, same harm.
      const relevant = r.findings.filter((f) => expected.has(f.category) || (expected.has('dangerous_install') && f.location === 'install_snippet'));
      const worst = relevant.reduce<Verdict>((w, f) => (RANK[f.severity] > RANK[w] ? f.severity : w), 'SAFE');
      if (worst !== r.verdict || RANK[worst] < RANK.HIGH) wrong.push(`${c.file}: verdict ${r.verdict}, worst ${[...expected].join('/')} finding ${worst}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the scan is linear: a body 4x longer takes well under 16x the time, even on hostile lines', () => {
    const hostile = ['curl '.repeat(2000), `eval ${'$'.repeat(3000)}`, `${'a'.repeat(5000)}@`, `ignore ${'previous '.repeat(800)}`, '<!--'.repeat(1000), 'sk-'.repeat(3000),
      `subprocess.run(${'request.args '.repeat(400)}`, `https://x.io/?a=${'='.repeat(3000)}`, `TOKEN=${'A'.repeat(5000)}`, `git remote add o ${'https://'.repeat(500)}`].join('\n');
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
