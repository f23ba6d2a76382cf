// A document's lead and setup (issue 48): its title, its lead paragraph, and its first install and
// usage examples. Kept at balanced and above without a query when the budget can hold them, since a
// reader who gets a README's API details but not what the package is or how to start cannot act.
import type { Block } from '../shared/markdown.js';
import type { Unit } from './units.js';
import { leadUnit } from './score.js';

/** Most tokens of the lead paragraph kept as the lead (its first sentences up to this). */
const LEAD_TOKENS = 90;
/** Most tokens of one example kept whole; a longer one keeps its head and first chunk. */
const EXAMPLE_TOKENS = 160;
const INSTALL = /\b(install(ation|ing)?|setup|set up|getting started|quick ?start|requirements)\b/i;
const USAGE = /\b(usage|example|examples|how to use|basic use|getting started|quick ?start|overview|synopsis|connect(ing|ion)?)\b/i;
const INSTALL_COMMAND = /\b(npm (i|install|add)|yarn add|pnpm add|pip install|cargo add|go get|gem install|brew install|apt(-get)? install|docker (run|pull))\b/;

/**
 * The setup pieces in the order they are given up when a budget cannot hold them all (last first):
 * title, lead sentence, install example, usage example, the rest of the lead paragraph. Each piece is a list of unit indices (deps not included).
 */
export function setupPieces(text: string, blocks: Block[], units: Unit[], tokens: ArrayLike<number>): number[][] {
  const pieces: number[][] = [];
  const title = units.findIndex((u) => u.kind === 'heading');
  const lead = leadUnit(text, blocks, units) >= 0 ? leadUnit(text, blocks, units) : leadList(text, blocks, units);
  if (title >= 0 && (lead < 0 || title < lead)) pieces.push([title]);
  let rest: number[] = [];
  if (lead >= 0) {
    // The lead sentence and what follows it in its block, or in the list it opens (a feature list).
    const leadPiece = [lead];
    let used = tokens[lead]!;
    const list = blocks[units[lead]!.block]!.kind === 'list';
    for (let k = lead + 1; k < units.length && used + tokens[k]! <= LEAD_TOKENS; k++) {
      const b = units[k]!.block;
      if (b !== units[lead]!.block && !(list && blocks[b]!.kind === 'list' && b === units[k - 1]!.block + 1)) break;
      leadPiece.push(k);
      used += tokens[k]!;
    }
    // The lead sentence whole (all its clauses, units.ts), then the rest of its paragraph.
    let sentenceEnd = 1;
    while (sentenceEnd < leadPiece.length && units[leadPiece[sentenceEnd]!]!.clause) sentenceEnd++;
    pieces.push(leadPiece.slice(0, sentenceEnd));
    rest = leadPiece.slice(sentenceEnd);
  }
  // The nearest heading names what a code block is for (`Usage` under `Getting started`).
  const sectionOf = (b: number) => {
    const h = blocks[b]!.headings.at(-1);
    return h === undefined ? '' : text.slice(blocks[h]!.contentStart, blocks[h]!.contentEnd);
  };
  let install: number[] | null = null;
  let usage: number[] | null = null;
  for (let b = 0; b < blocks.length && !(install && usage); b++) {
    if (blocks[b]!.kind !== 'code') continue;
    const code = text.slice(blocks[b]!.start, blocks[b]!.end);
    const section = sectionOf(b);
    const isInstall = INSTALL_COMMAND.test(code) || (INSTALL.test(section) && code.length < 400);
    if (!install && isInstall) install = exampleUnits(units, tokens, b);
    else if (!usage && !INSTALL_COMMAND.test(code) && USAGE.test(section)) usage = exampleUnits(units, tokens, b);
  }
  if (install) pieces.push(install);
  if (usage) pieces.push(usage);
  // The rest of the lead paragraph is given up first: its first sentence says what the thing is, the
  // examples how to start; what follows ("This guide walks through…") competes like any sentence.
  if (rest.length) pieces.push(rest);
  return pieces;
}

/** The units of code block b: all of them when short, else its head and first chunk. */
function exampleUnits(units: Unit[], tokens: ArrayLike<number>, b: number): number[] {
  const all: number[] = [];
  for (let k = 0; k < units.length; k++) if (units[k]!.block === b) all.push(k);
  let total = 0;
  for (const k of all) total += tokens[k]!;
  return total <= EXAMPLE_TOKENS ? all : all.slice(0, 2);
}

/** Without a lead sentence, the first list item with words of its own before the second heading (a README's feature list). */
function leadList(text: string, blocks: Block[], units: Unit[]): number {
  let headings = 0;
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    if (u.kind === 'heading' && ++headings > 1) return -1;
    if (u.kind === 'sentence' && blocks[u.block]!.kind === 'list' && /\p{L}{3,}\s+\p{L}{3,}/u.test(text.slice(u.start, u.end))) return i;
  }
  return -1;
}
