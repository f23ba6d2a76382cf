// In-sentence compression: a prose sentence without its articles, filler words and parentheticals
// that hold no name or number. Names, numbers, code spans and links are kept verbatim.
import { IDENT, NUMBER } from './score.js';

/** Pieces never touched: code spans, links and URLs. */
const PROTECTED = /`[^`\n]*`|\[[^\]\n]*\]\([^)\n]*\)|<https?:[^>\s]*>|https?:\/\/\S+/g;
const FILLER = /(^|[\s(])(?:the|a|an|just|simply|very|really|basically|actually|quite|easily|please|certainly|generally|usually|typically|currently)(?=\s)/g;
const PHRASES: [RegExp, string][] = [
  [/\bin order to\b/g, 'to'],
  [/\bis able to\b/g, 'can'],
  [/\bare able to\b/g, 'can'],
  [/\bmake sure\b/g, 'ensure'],
  [/\ba number of\b/g, 'several'],
  [/\bas well as\b/g, 'and'],
];
const CODE_LIKE = /[{};=]|=>|\w\(|^\s*(?:\$|>>>|import|from|const|let|var|def|class|return)\b/m;
const PAREN = /\s\(([^()\n]*)\)/g;
const PASCAL = /\b[A-Z][a-z0-9]+[A-Z]\w*\b/;

const named = (s: string) => new RegExp(NUMBER.source).test(s) || new RegExp(IDENT.source).test(s) || PASCAL.test(s) || /[`"']/.test(s);

function squeezePlain(s: string): string {
  let r = s;
  for (const [re, to] of PHRASES) r = r.replace(re, to);
  r = r.replace(PAREN, (m, inner: string) => (named(inner) ? m : ''));
  r = r.replace(FILLER, '$1');
  return r.replace(/[ \t]{2,}/g, ' ').replace(/[ \t]+([,.;:!?])/g, '$1');
}

/** The sentence squeezed, or undefined when nothing could go (or it would be empty). */
export function squeeze(sentence: string): string | undefined {
  // Code that reached a paragraph unfenced is left alone: parentheses and words there are syntax.
  if (CODE_LIKE.test(sentence)) return undefined;
  let out = '';
  let at = 0;
  for (const m of sentence.matchAll(PROTECTED)) {
    out += squeezePlain(sentence.slice(at, m.index)) + m[0];
    at = m.index! + m[0].length;
  }
  out += squeezePlain(sentence.slice(at));
  // Keep the original leading/trailing whitespace shape (units carry their trailing newline).
  const lead = /^\s*/.exec(sentence)![0];
  const trail = /\s*$/.exec(sentence)![0];
  out = lead + out.trim() + trail;
  if (out === sentence || out.trim().length < 8) return undefined;
  return out;
}
