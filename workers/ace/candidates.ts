// Candidate insights from free text: the fallback when a model answered without the JSON format asked
// for. Its lines are split into sentences; list markers, a leading [tag] and a short "Label:" prefix
// go; cut-off fragments and sentences under four words are dropped; and a sentence must be about the
// attempt: it shares at least two content terms with the task, feedback or ground truth (so chatter
// such as "Sure, here is my analysis." or a model's status line never becomes a bullet).
import { sectionFor } from '../shared/aceSections.js';
import { terms } from '../shared/terms.js';

export { sectionFor };

const MIN_WORDS = 4;
const MIN_SHARED_TERMS = 2;
const MAX_CHARS = 2000;

function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const clean = line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim();
    for (const raw of clean.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(\[])/)) {
      const s = raw
        .replace(/^\[[^\]]{1,40}\]\s*/, '')
        .replace(/^[A-Za-z][A-Za-z ]{0,30}:\s+/, '')
        .replace(/\s*(?:…|\.\.\.)$/, '')
        .replace(/\s+/g, ' ')
        .trim();
      if (s) out.push(s.slice(0, MAX_CHARS));
    }
  }
  return out;
}

/** Up to `max` grounded sentences of `text`, each with its section; duplicates (case-insensitive) once. */
export function candidateInsights(text: string, reference: string, max: number): { section: string; content: string }[] {
  const ref = new Set(terms(reference));
  const seen = new Set<string>();
  const out: { section: string; content: string }[] = [];
  for (const s of sentences(text)) {
    if (s.split(' ').filter((w) => /\p{L}/u.test(w)).length < MIN_WORDS) continue;
    const shared = new Set(terms(s).filter((t) => ref.has(t)));
    if (shared.size < MIN_SHARED_TERMS) continue;
    const key = s.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ section: sectionFor(s), content: s });
    if (out.length >= max) break;
  }
  return out;
}
