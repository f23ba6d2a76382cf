// The labelled skill set (bench/skills/): SKILL.md files with their labels, and the scanner's
// confusion figures on one split. Malicious means "must be CRITICAL"; benign "must not be".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanSkill, type SkillScanResult } from '../../workers/skills/scan.js';

const DIR = fileURLToPath(new URL('../../bench/skills', import.meta.url));

export interface LabelledSkill {
  file: string;
  label: 'malicious' | 'benign';
  split: 'dev' | 'test' | 'holdout' | 'holdout2' | 'holdout3';
  kinds?: string[];
  install_snippet?: string;
  name: string;
  tagline: string;
  body: string;
}

export function loadLabelled(): LabelledSkill[] {
  const labels = JSON.parse(readFileSync(join(DIR, 'labels.json'), 'utf8')) as { cases: Omit<LabelledSkill, 'name' | 'tagline' | 'body'>[] };
  return labels.cases.map((c) => {
    const body = readFileSync(join(DIR, 'cases', c.file), 'utf8');
    const front = /^---\n([\s\S]*?)\n---/.exec(body)?.[1] ?? '';
    const field = (k: string) => new RegExp(`^${k}:\\s*(.*)$`, 'm').exec(front)?.[1]?.trim() ?? '';
    return { ...c, name: field('name'), tagline: field('description'), body };
  });
}

export interface SplitFigures {
  n: number;
  tp: number;
  fn: number;
  fp: number;
  tn: number;
  precision: number;
  recall: number;
  missed: string[];
  falseAlarms: string[];
  /** Verdict HIGH or CRITICAL: cannot be enabled or published (the acceptable-verdict gate). */
  maliciousBlocked: number;
  benignBlocked: string[];
  results: { file: string; label: string; result: SkillScanResult }[];
}

export function evaluate(cases: LabelledSkill[]): SplitFigures {
  const f: SplitFigures = { n: cases.length, tp: 0, fn: 0, fp: 0, tn: 0, precision: 0, recall: 0, missed: [], falseAlarms: [], maliciousBlocked: 0, benignBlocked: [], results: [] };
  for (const c of cases) {
    const result = scanSkill({ body: c.body, install_snippet: c.install_snippet, name: c.name, tagline: c.tagline });
    f.results.push({ file: c.file, label: c.label, result });
    const critical = result.verdict === 'CRITICAL';
    const blocked = critical || result.verdict === 'HIGH';
    if (blocked && c.label === 'malicious') f.maliciousBlocked++;
    if (blocked && c.label === 'benign') f.benignBlocked.push(c.file);
    if (c.label === 'malicious') critical ? f.tp++ : (f.fn++, f.missed.push(c.file));
    else critical ? (f.fp++, f.falseAlarms.push(c.file)) : f.tn++;
  }
  f.precision = f.tp + f.fp === 0 ? 1 : f.tp / (f.tp + f.fp);
  f.recall = f.tp + f.fn === 0 ? 1 : f.tp / (f.tp + f.fn);
  return f;
}
