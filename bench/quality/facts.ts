// Detail retention: the names and numbers an agent acts on. A "fact" is a distinct number, inline code
// span, or code-like identifier (dotted, snake_case, camelCase, PascalCase with an inner capital).
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { HTML_COMMENT, LINK_TARGET } from '../../workers/text/links.js';

const FACT = /`[^`\n]{1,80}`|\b\d[\d.,_:]*\d\b|\b\d\b|\b[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\b|\b[A-Za-z$]*_[\w$]+\b|\b[a-z]+[A-Z][\w$]*\b|\b[A-Z][a-z0-9]+[A-Z][\w$]*\b/g;

/**
 * Where links and images point is left out (the engine's own rule, workers/text/links.ts): a badge's
 * host name or an avatar's number is not a detail an agent acts on. Bare URLs in the text count.
 */
export function factsOf(text: string): Set<string> {
  return new Set(text.replace(LINK_TARGET, ' ').replace(HTML_COMMENT, ' ').match(FACT) ?? []);
}

/** Share of the input's distinct facts that appear verbatim in the output. */
export function factRetention(input: string, output: string): { kept: number; total: number } {
  const facts = factsOf(input);
  let kept = 0;
  for (const f of facts) if (output.includes(f)) kept++;
  return { kept, total: facts.size };
}

/** Paragraph-sized pieces (blank-line separated prose, not code or tables) of 50–200 tokens. */
export function shortPieces(text: string, count: (s: string) => number): string[] {
  return text.split(/\n{2,}/).filter((p) => {
    if (/^(```|\||<|\s{4})/.test(p)) return false;
    const t = count(p);
    return t >= 50 && t <= 200;
  });
}

/** One held-out document (bench/quality/heldout/<name>.md) and the facts chosen for it before any output was read (<name>.facts.json). */
export interface HeldoutFacts {
  name: string;
  text: string;
  facts: string[];
}

/** The held-out documents written for issue 48 with their chosen facts (bench/quality/heldout). */
export function heldoutFacts(): HeldoutFacts[] {
  const dir = resolve(process.cwd(), 'bench/quality/heldout');
  return readdirSync(dir).filter((f) => f.endsWith('.md')).sort().map((f) => ({
    name: f.replace(/\.md$/, ''),
    text: readFileSync(resolve(dir, f), 'utf8'),
    facts: JSON.parse(readFileSync(resolve(dir, f.replace(/\.md$/, '.facts.json')), 'utf8')) as string[],
  }));
}

/** The chosen facts an output states in its kept text (markers removed first: a marker names, it does not state). */
export function chosenFactsKept(output: string, facts: readonly string[], marker: RegExp): string[] {
  const kept = output.replace(marker, ' ');
  return facts.filter((f) => kept.includes(f));
}
