// The labelled question set of the documentation lookup (questions.json) and its recall@k.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/lib/root.js';
import type { DocsIndex, SearchOptions } from '../../workers/docs/index.js';

export interface Label {
  doc: string;
  section?: string;
  contains?: string;
}

export interface Question {
  id: string;
  split: 'dev' | 'test';
  framework: string;
  question: string;
  relevant: Label[];
}

export function loadQuestions(): Question[] {
  const file = join(packageRoot(), 'bench', 'docslookup', 'questions.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { questions: Question[] }).questions;
}

/** Whether a chunk (by its page id, title path and text) answers the label. */
export function matches(label: Label, chunk: { doc_id: string; title: string; text: string }, pageTitle: string): boolean {
  if (chunk.doc_id !== label.doc) return false;
  const section = chunk.title.startsWith(pageTitle) ? chunk.title.slice(pageTitle.length) : chunk.title;
  if (label.section && !section.toLowerCase().includes(label.section.toLowerCase())) return false;
  if (label.contains && !chunk.text.toLowerCase().includes(label.contains.toLowerCase())) return false;
  return true;
}

function chunkView(index: DocsIndex, i: number) {
  const c = index.chunk(i);
  const page = index.page(c.page);
  return { view: { doc_id: page.id, title: c.title, text: c.text }, pageTitle: page.title };
}

/** Labels no chunk of the index satisfies (a typo, or a rebuilt index that moved a section). */
export function deadLabels(index: DocsIndex, questions: Question[]): string[] {
  const dead: string[] = [];
  for (const q of questions) {
    for (const l of q.relevant) {
      let found = false;
      for (let i = 0; i < index.file.chunks.length && !found; i++) {
        const { view, pageTitle } = chunkView(index, i);
        found = matches(l, view, pageTitle);
      }
      if (!found) dead.push(`${q.id}: ${JSON.stringify(l)}`);
    }
  }
  return dead;
}

export interface Evaluation {
  n: number;
  recall: number;
  mrr: number;
  misses: string[];
}

/** recall@k (a relevant chunk among the first k) and MRR@k over the questions. */
export async function evaluate(index: DocsIndex, questions: Question[], k = 5, tuning?: SearchOptions['tuning']): Promise<Evaluation> {
  let hits = 0;
  let rr = 0;
  const misses: string[] = [];
  for (const q of questions) {
    const { hits: ranked } = await index.search(q.question, { k, tuning });
    const rank = ranked.findIndex((h) => {
      const { view, pageTitle } = chunkView(index, h.chunk);
      return q.relevant.some((l) => matches(l, view, pageTitle));
    });
    if (rank >= 0) {
      hits++;
      rr += 1 / (rank + 1);
    } else misses.push(q.id);
  }
  const n = questions.length;
  return { n, recall: n ? hits / n : 0, mrr: n ? rr / n : 0, misses };
}
