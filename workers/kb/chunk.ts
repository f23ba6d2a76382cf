// Structure-aware chunking for the Knowledge Hub: sections and paragraphs, about 200-400 tokens,
// each chunk an exact slice of the original with its heading path; plus the chunk's skeleton view.
// JSON and YAML are cut as the text engine cuts them, into whole values, and a chunk's heading is
// the path of the value it starts in. An HTML page or terminal output is chunked as it reads
// (../text/asRead.ts): a chunk's text has no tags or escapes, its offsets are the page's.
import { parseBlocks, type Block } from '../shared/markdown.js';
import { splitSentences } from '../text/sentences.js';
import { compressText } from '../text/index.js';
import { textAsRead } from '../text/asRead.js';
import { fastCount } from '../text/tokencount.js';
import type { TreeKind } from '../text/tree.js';
import { structuredDoc, structuredSkeleton, type StructuredDoc } from './treeChunks.js';
import type { TokenizerName } from '../shared/tokens.js';

export const CHUNK_MIN_TOKENS = 200;
export const CHUNK_MAX_TOKENS = 400;
/** A heading starts a new chunk once the current one holds at least this many tokens. */
const SECTION_FLUSH_TOKENS = 120;
const TOKENIZER: TokenizerName = 'o200k_base';

export interface Chunk {
  ordinal: number;
  /** Heading path ("Install › Linux"), or null before the first heading. */
  heading: string | null;
  /** Offsets into the original text. */
  start: number;
  end: number;
  /**
   * text.slice(start, end); for an HTML page or terminal output, that slice as read (tags, scripts and
   * escapes removed), which is what gets embedded, indexed and returned.
   */
  raw_text: string;
  tokens: number;
  /** Compressed view for navigation: kept sentences verbatim, [HIDDEN: …] for elided runs. */
  skeleton: string;
}

interface Piece {
  start: number;
  end: number;
  tokens: number;
  /** Block index of the heading chain this piece lives under (-1: none); for JSON and YAML, the opened value's block. */
  section: number;
  isHeading: boolean;
  /** Starts a section (a heading, or the first value of another opened value): a chunk may end before it. */
  opens: boolean;
  /** JSON and YAML: the kind of value the piece is a part of (what a chunk starting here is inside). */
  kind?: TreeKind;
}

function headingText(text: string, blk: Block): string {
  return text.slice(blk.contentStart, blk.contentEnd).replace(/#+\s*$/, '').trim();
}

/** Splits one over-long block into pieces of at most `max` tokens: by sentences, else by lines. */
function splitBlock(text: string, blk: Block, section: number, max: number): Piece[] {
  const spans =
    blk.kind === 'paragraph' || blk.kind === 'list' || blk.kind === 'quote'
      ? splitSentences(text.slice(blk.start, blk.end)).map((s) => ({ start: blk.start + s.start, end: blk.start + s.end }))
      : lineSpans(text, blk.start, blk.end);
  const out: Piece[] = [];
  let cur: Piece | null = null;
  for (const s of spans) {
    const t = fastCount(text.slice(s.start, s.end), TOKENIZER);
    if (cur && cur.tokens + t > max) {
      out.push(cur);
      cur = null;
    }
    if (!cur) cur = { start: s.start, end: s.end, tokens: t, section, isHeading: false, opens: false };
    else {
      cur.end = s.end;
      cur.tokens += t;
    }
  }
  if (cur) out.push(cur);
  return out;
}

function lineSpans(text: string, start: number, end: number): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let at = start;
  while (at < end) {
    let nl = text.indexOf('\n', at);
    if (nl < 0 || nl > end) nl = end;
    if (nl > at) out.push({ start: at, end: nl });
    at = nl + 1;
  }
  return out;
}

/** Markers of the text engine ("[… 3 sentences, 40 tokens]") become the hub's [HIDDEN: …] markers. */
export function hiddenMarkers(skeleton: string): string {
  return skeleton.replace(/\[… ([^\]]*)\]/g, '[HIDDEN: $1]');
}

/** A chunk of JSON or YAML is compressed as structured text when it can be made one value again, else as prose. */
async function chunkSkeleton(raw: string, tokens: number, structured: (() => Promise<string | null>) | null): Promise<string> {
  if (tokens <= 60) return raw;
  const out = (structured && (await structured())) ?? (await compressText({ text: raw, fidelity: 'balanced' })).compressed_text;
  return hiddenMarkers(out);
}

interface Sections {
  pieces: Piece[];
  headingPath: (section: number) => string | null;
}

/** Markdown (and plain text): blocks under their heading chains, a heading opening each section. */
function markdownPieces(text: string, max: number): Sections {
  const blocks = parseBlocks(text);
  const pieces: Piece[] = [];
  blocks.forEach((blk) => {
    const section = blk.headings.length ? blk.headings[blk.headings.length - 1]! : -1;
    const tokens = fastCount(text.slice(blk.start, blk.end), TOKENIZER);
    const isHeading = blk.kind === 'heading';
    if (tokens > max && !isHeading) pieces.push(...splitBlock(text, blk, section, max));
    else pieces.push({ start: blk.start, end: blk.end, tokens, section, isHeading, opens: isHeading });
  });
  const headingPath = (section: number): string | null => {
    if (section < 0) return null;
    return blocks[section]!.headings.map((h) => headingText(text, blocks[h]!)).filter(Boolean).join(' › ') || null;
  };
  return { pieces, headingPath };
}

/** JSON and YAML: the text engine's units (whole values, a long string's sentences), each opened value a section named by its path. */
function structuredPieces(text: string, doc: StructuredDoc, max: number): Sections {
  const pieces: Piece[] = [];
  let last = -1;
  doc.units.forEach((u, i) => {
    const tokens = fastCount(text.slice(u.start, u.end), TOKENIZER);
    const opens = u.block !== last;
    last = u.block;
    const piece: Piece = { start: u.start, end: u.end, tokens, section: u.block, isHeading: false, opens, kind: doc.kinds[i] };
    // A value too deep to be opened can exceed a chunk: it is cut at line ends.
    const parts = tokens > max ? lineSpans(text, u.start, u.end).map((l) => ({ ...piece, ...l, tokens: fastCount(text.slice(l.start, l.end), TOKENIZER), opens: false })) : [piece];
    parts[0]!.opens = opens;
    pieces.push(...parts);
  });
  return { pieces, headingPath: (section) => `${doc.format} ${doc.paths[section]}` };
}

/** Cuts `text` into chunks; `withSkeleton: false` leaves skeleton = raw_text (cheap path for tests/bench). */
export async function chunkText(sent: string, options: { withSkeleton?: boolean; max?: number } = {}): Promise<Chunk[]> {
  if (sent.trim() === '') return [];
  const max = options.max ?? CHUNK_MAX_TOKENS;
  const read = textAsRead(sent);
  const text = read?.text ?? sent;
  const sentOffset = read ? read.originalOffset : (k: number) => k;
  const doc = structuredDoc(text);
  const structured = doc !== null;
  const { pieces, headingPath } = doc ? structuredPieces(text, doc, max) : markdownPieces(text, max);

  const groups: Piece[][] = [];
  let cur: Piece[] = [];
  let curTokens = 0;
  for (const p of pieces) {
    const flushForHeading = p.opens && curTokens >= SECTION_FLUSH_TOKENS;
    const flushForSize = cur.length > 0 && curTokens + p.tokens > max;
    if (flushForHeading || flushForSize) {
      groups.push(cur);
      cur = [];
      curTokens = 0;
    }
    cur.push(p);
    curTokens += p.tokens;
  }
  if (cur.length) groups.push(cur);
  // A trailing heading-only group (document ends on a heading) joins the previous chunk.
  const last = groups[groups.length - 1];
  if (groups.length > 1 && last && last.every((p) => p.isHeading)) groups[groups.length - 2]!.push(...groups.pop()!);

  const chunks: Chunk[] = [];
  for (const g of groups) {
    const start = g[0]!.start;
    const end = g[g.length - 1]!.end;
    const raw = text.slice(start, end);
    if (raw.trim() === '') continue;
    const tokens = g.reduce((s, p) => s + p.tokens, 0);
    // The heading path of the first non-heading piece (or the heading's own section); in JSON and
    // YAML, of the value most of the chunk is in (a root's `"version": 3,` before its records).
    const body = structured ? g.reduce((a, p) => (p.tokens > a.tokens ? p : a)) : (g.find((p) => !p.isHeading) ?? g[0]!);
    chunks.push({
      ordinal: chunks.length,
      heading: headingPath(body.section),
      start: sentOffset(start),
      end: sentOffset(end),
      raw_text: raw,
      tokens,
      skeleton: options.withSkeleton === false ? raw : await chunkSkeleton(raw, tokens, doc && g[0]!.kind ? () => structuredSkeleton(doc, text, start, end, g[0]!.kind!) : null),
    });
  }
  return chunks;
}

/** What gets embedded for a chunk: its heading path gives short chunks their context. */
export function embeddingText(c: { heading: string | null; raw_text: string }): string {
  return c.heading ? `${c.heading}\n${c.raw_text}` : c.raw_text;
}
