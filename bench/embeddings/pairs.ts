// Self-supervised training pairs for the model's linear projection, from the Markdown docs of
// installed packages (never the benchmark's pydoc corpus): a heading and the prose of its
// section ("heading -> section"), and a sentence and the rest of its paragraph
// ("sentence -> paragraph"). Deterministic: sorted paths, hash order.
import { readFileSync } from 'node:fs';
import { fnv1a } from '../../workers/embed/tokenizer-static.js';
import { markdownFiles } from '../../scripts/models/corpus.js';

export interface Pair {
  a: string;
  b: string;
  kind: 'heading' | 'sentence';
}

const clean = (t: string): string =>
  t
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/^[>*\-\s|]+/gm, '');

const words = (t: string): number => t.split(' ').filter(Boolean).length;
const prose = (t: string): boolean => {
  if (/https?:|[{}=<>|\\$]/.test(t)) return false;
  const letters = t.replace(/[^A-Za-z ]/g, '').length;
  return letters / Math.max(1, t.length) >= 0.8;
};

/** Heading -> section and sentence -> rest-of-paragraph pairs, deduplicated, capped at `limit`. */
export function collectPairs(root: string, limit: number): Pair[] {
  const seen = new Set<string>();
  const out: Pair[] = [];
  const add = (a: string, b: string, kind: Pair['kind']) => {
    const key = `${a}\u0000${b}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ a, b, kind });
  };
  for (const f of markdownFiles(root)) {
    const text = readFileSync(f, 'utf8').replace(/```[\s\S]*?```/g, ' ');
    const sections = text.split(/^(?=#{1,6} )/m);
    for (const sec of sections) {
      const m = /^#{1,6} (.*)\n([\s\S]*)$/.exec(sec);
      const body = m ? m[2]! : sec;
      const paras = clean(body)
        .split(/\n\s*\n/)
        .map((p) => p.replace(/\s+/g, ' ').trim())
        .filter((p) => words(p) >= 8 && prose(p));
      if (m && paras.length) {
        const heading = clean(m[1]!).replace(/[#*_]/g, ' ').replace(/\s+/g, ' ').trim();
        const section = paras.join(' ').split(' ').slice(0, 200).join(' ');
        if (words(heading) >= 2 && words(heading) <= 12 && prose(heading)) add(heading, section, 'heading');
      }
      for (const p of paras) {
        const sents = p.split(/(?<=[.!?])\s+(?=[A-Z])/);
        if (sents.length < 3) continue;
        // The first sentence (usually the topic sentence) against the rest of the paragraph.
        const rest = sents.slice(1).join(' ');
        if (words(sents[0]!) >= 5 && words(sents[0]!) <= 30) add(sents[0]!, rest, 'sentence');
      }
    }
  }
  return out.sort((x, y) => fnv1a(x.a + x.b) - fnv1a(y.a + y.b) || (x.a < y.a ? -1 : 1)).slice(0, limit);
}

/**
 * Word counts (by vocabulary row) over the prose of the same Markdown docs: a software-docs
 * frequency estimate, so that words common in technical text ("function", "value", "default")
 * are not weighted as if they were rare, as news-text frequencies alone would have them.
 */
export function domainCounts(root: string, encode: (text: string) => { ids: ArrayLike<number> }, vocabSize: number): { counts: Float64Array; total: number } {
  const counts = new Float64Array(vocabSize);
  let total = 0;
  for (const f of markdownFiles(root)) {
    const text = readFileSync(f, 'utf8')
      .replace(/```[\s\S]*?```/g, ' ')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, ' ');
    for (const para of text.split(/\n\s*\n/)) {
      const { ids } = encode(para);
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (id < vocabSize) {
          counts[id]! += 1;
          total++;
        }
      }
    }
  }
  return { counts, total };
}
