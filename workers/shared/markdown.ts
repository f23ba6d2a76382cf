// Markdown-aware (and plain-text tolerant) block structure with offsets into the original text: the
// one Markdown splitter (text engine, Knowledge Hub chunks, ingested-document nodes).

export type BlockKind = 'heading' | 'paragraph' | 'list' | 'quote' | 'table' | 'code' | 'html' | 'rule';

export interface Line {
  start: number;
  end: number;
}

export interface Block {
  kind: BlockKind;
  start: number;
  end: number;
  /** Span of prose content (after list marker / quote marker); sentence splitting runs on it. */
  contentStart: number;
  contentEnd: number;
  /** Raw text rendered before kept sentences ("- ", "  1. ", "> "). */
  prefix: string;
  /** Heading level 1..6 (headings only). */
  level: number;
  /** Lines of tables (header, delimiter, rows) and code blocks (fence lines included). */
  lines: Line[];
  /** Fenced code: index in `lines` of the first body line and of the closing fence (-1 if none). */
  bodyStart: number;
  closeLine: number;
  /** Block indices of the enclosing headings, outermost first (a heading includes itself). */
  headings: number[];
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const UNDERLINE = /^ {0,3}([=\-*~^"#+])\1{2,}\s*$/;
const TABLE_DELIM = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;
const LIST_ITEM = /^(\s*)([-*+•]|\d{1,3}[.)])[ \t]+/;
const QUOTE = /^ {0,3}>/;
const HTML = /^ {0,3}<\/?[a-zA-Z!]/;

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      lines.push({ start, end: text.length });
      return lines;
    }
    lines.push({ start, end: nl > start && text[nl - 1] === '\r' ? nl - 1 : nl });
    start = nl + 1;
  }
}

function indentOf(s: string): number {
  const m = /^[ \t]*/.exec(s)![0];
  return m.replace(/\t/g, '    ').length;
}

/** Indented material that reads like prose (pydoc notes, list continuations) rather than code or grammar. */
function looksLikeProse(s: string): boolean {
  if (/>>>|::=|[{};]\s*$|^\s*(def|class|import|return|if|for|while|from|const|let|var|function)\b/m.test(s)) return false;
  const nonSpace = s.replace(/\s+/g, '');
  if (nonSpace.length === 0) return false;
  const letters = (nonSpace.match(/[\p{L}]/gu) ?? []).length;
  return letters / nonSpace.length >= 0.8 && s.trim().split(/\s+/).length >= 6;
}

/** A lone short line that acts as a heading in plain text ("INTRODUCTION", "Installation Guide"). */
function headingLike(s: string): boolean {
  const t = s.trim();
  if (t.length < 3 || t.length > 70 || /[.,;:!?)\]]$/.test(t) || !/^[\p{Lu}\p{N}]/u.test(t)) return false;
  const words = t.split(/\s+/);
  if (words.length > 10) return false;
  if (t === t.toUpperCase() && /\p{Lu}{3}/u.test(t)) return true;
  const longWords = words.filter((w) => /^\p{L}{4,}/u.test(w));
  const capitalised = longWords.filter((w) => /^\p{Lu}/u.test(w));
  return words.length <= 4 || (longWords.length > 0 && capitalised.length / longWords.length >= 0.6);
}

export function parseBlocks(text: string): Block[] {
  const lines = splitLines(text);
  const L = (i: number) => text.slice(lines[i]!.start, lines[i]!.end);
  const blank = (i: number) => i >= lines.length || L(i).trim() === '';
  const blocks: Block[] = [];
  const push = (kind: BlockKind, from: number, to: number, extra: Partial<Block> = {}) => {
    const start = lines[from]!.start;
    const end = lines[to]!.end;
    blocks.push({
      kind, start, end, contentStart: start, contentEnd: end, prefix: '', level: 0,
      lines: [], bodyStart: 0, closeLine: -1, headings: [], ...extra,
    });
  };
  let inList = false;
  let i = 0;
  while (i < lines.length) {
    const line = L(i);
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const ch = fence[1]![0]!;
      const len = fence[1]!.length;
      let j = i + 1;
      const close = new RegExp(`^ {0,3}\\${ch}{${len},}\\s*$`);
      while (j < lines.length && !close.test(L(j))) j++;
      const last = Math.min(j, lines.length - 1);
      push('code', i, last, { lines: lines.slice(i, last + 1), bodyStart: 1, closeLine: j < lines.length ? last - i : -1 });
      i = last + 1;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      const cs = lines[i]!.start + atx[0].length;
      push('heading', i, i, { level: atx[1]!.length, contentStart: cs });
      inList = false;
      i++;
      continue;
    }
    if (UNDERLINE.test(line)) {
      // RST overline + title + underline, or a bare horizontal rule.
      if (!blank(i + 1) && i + 2 < lines.length && UNDERLINE.test(L(i + 2)) && L(i + 2).trim()[0] === line.trim()[0]) {
        push('heading', i, i + 2, { level: 1, contentStart: lines[i + 1]!.start, contentEnd: lines[i + 1]!.end });
        i += 3;
      } else {
        push('rule', i, i);
        i++;
      }
      inList = false;
      continue;
    }
    if (i + 1 < lines.length && UNDERLINE.test(L(i + 1)) && !LIST_ITEM.test(line) && !line.includes('|') && line.trim().length <= 120) {
      const ch = L(i + 1).trim()[0];
      push('heading', i, i + 1, { level: ch === '=' || ch === '*' || ch === '#' ? 1 : ch === '-' ? 2 : 3, contentEnd: lines[i]!.end });
      inList = false;
      i += 2;
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_DELIM.test(L(i + 1)) && L(i + 1).includes('-')) {
      let j = i + 2;
      while (j < lines.length && !blank(j) && L(j).includes('|')) j++;
      push('table', i, j - 1, { lines: lines.slice(i, j) });
      i = j;
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      let j = i + 1;
      while (j < lines.length && !blank(j) && !LIST_ITEM.test(L(j)) && !FENCE.test(L(j)) && !ATX.test(L(j))) j++;
      const cs = lines[i]!.start + item[0].length;
      push('list', i, j - 1, { prefix: item[0], contentStart: cs, level: indentOf(item[1]!) });
      inList = true;
      i = j;
      continue;
    }
    if (QUOTE.test(line)) {
      let j = i + 1;
      while (j < lines.length && !blank(j)) j++;
      const cs = lines[i]!.start + /^ {0,3}>\s?/.exec(line)![0].length;
      push('quote', i, j - 1, { prefix: '> ', contentStart: cs });
      i = j;
      continue;
    }
    if (HTML.test(line)) {
      let j = i + 1;
      while (j < lines.length && !blank(j)) j++;
      push('html', i, j - 1);
      i = j;
      continue;
    }
    // Paragraph (or indented block): runs to the next blank line or block start.
    let j = i + 1;
    while (j < lines.length && !blank(j) && !FENCE.test(L(j)) && !ATX.test(L(j)) && !(UNDERLINE.test(L(j)) && j > i + 1)) {
      if (LIST_ITEM.test(L(j)) && indentOf(L(j)) <= indentOf(line)) break;
      j++;
    }
    const body = text.slice(lines[i]!.start, lines[j - 1]!.end);
    const indent = indentOf(line);
    if (indent >= 3 && !inList && !looksLikeProse(body)) {
      push('code', i, j - 1, { lines: lines.slice(i, j), bodyStart: 0, closeLine: -1 });
    } else {
      const lead = /^\s*/.exec(line)![0];
      push('paragraph', i, j - 1, { prefix: lead, contentStart: lines[i]!.start + lead.length });
      if (indent < 2) inList = false;
    }
    i = j;
  }
  promotePlainHeadings(text, blocks);
  assignSections(blocks);
  return blocks;
}

/** Lone heading-like lines followed by content become level-3 headings. */
function promotePlainHeadings(text: string, blocks: Block[]): void {
  for (let b = 0; b < blocks.length - 1; b++) {
    const blk = blocks[b]!;
    if (blk.kind !== 'paragraph' || blk.prefix !== '') continue;
    const s = text.slice(blk.start, blk.end);
    if (s.includes('\n') || !headingLike(s)) continue;
    const next = blocks[b + 1]!;
    if (next.kind === 'heading' || next.kind === 'rule') continue;
    blk.kind = 'heading';
    blk.level = 2; // one level: plain text gives no reliable nesting signal
  }
}

function assignSections(blocks: Block[]): void {
  const stack: number[] = [];
  blocks.forEach((blk, b) => {
    if (blk.kind === 'heading') {
      while (stack.length && blocks[stack[stack.length - 1]!]!.level >= blk.level) stack.pop();
      stack.push(b);
    }
    blk.headings = stack.slice();
  });
}
