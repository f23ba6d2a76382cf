// Benchmark data: committed labels (pairs.json, queries.json) and the passage corpus read from
// the machine's Python pydoc topics.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Pairs {
  paraphrase: [string, string][];
  hard_negative: [string, string][];
}
export type Split = 'dev' | 'test';
export interface Query {
  q: string;
  /** Substring(s) of the relevant paragraph(s): a paragraph containing any of them is relevant. */
  contains: string | string[];
  /** 'dev' for choosing parameters, 'test' held out for the reported numbers. */
  split: Split;
}
export interface Queries {
  queries: Query[];
}

/** Indices of the passages each query's label matches; throws on a label that matches nothing. */
export function relevantSets(queries: readonly Query[], passages: readonly string[]): Set<number>[] {
  return queries.map((x) => {
    const subs = Array.isArray(x.contains) ? x.contains : [x.contains];
    const s = new Set<number>();
    passages.forEach((p, i) => subs.some((c) => p.includes(c)) && s.add(i));
    if (s.size === 0) throw new Error(`label matches no passage: ${subs.join(' | ')}`);
    return s;
  });
}

export function loadLabels(dir: string): { pairs: Pairs; queries: Queries } {
  return {
    pairs: JSON.parse(readFileSync(join(dir, 'pairs.json'), 'utf8')) as Pairs,
    queries: JSON.parse(readFileSync(join(dir, 'queries.json'), 'utf8')) as Queries,
  };
}

const PY_CANDIDATES = ['/root/.pyenv/versions/3.11.7/bin/python3', 'python3'];

/** Paragraphs of pydoc_data.topics: blank-line separated, >= 8 words, whitespace collapsed, deduplicated. */
export function loadPassages(): string[] {
  const code =
    'import json,re\nfrom pydoc_data.topics import topics\nout=[]\nfor k in topics:\n' +
    '  for p in re.split(r"\\n\\s*\\n", topics[k]):\n    out.append(" ".join(p.split()))\nprint(json.dumps(out))';
  for (const py of PY_CANDIDATES) {
    if (py.startsWith('/') && !existsSync(py)) continue;
    try {
      const raw = JSON.parse(execFileSync(py, ['-c', code], { encoding: 'utf8', maxBuffer: 64 << 20 })) as string[];
      return [...new Set(raw.filter((p) => p.split(' ').length >= 8))];
    } catch {
      /* try the next interpreter */
    }
  }
  throw new Error('python3 with pydoc_data not found');
}
