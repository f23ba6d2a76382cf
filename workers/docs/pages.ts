// One documentation page cut into titled chunks (the Knowledge Hub's chunker), each with the anchor
// of its section as GitHub renders it, so a chunk's URL opens the official page at that section.
import { chunkText } from '../kb/chunk.js';
import { fastCount } from '../text/tokencount.js';

export interface PageChunk {
  title: string;
  anchor: string | null;
  text: string;
  tokens: number;
}

/** Inline Markdown and HTML reduced to the text a reader sees. */
export function plainHeading(s: string): string {
  return s
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`+/g, '')
    // Emphasis by asterisks only: underscores are part of identifiers (idle_timeout, max_lifetime).
    .replace(/(\*\*|\*)([^*]+)\1/g, '$2')
    .replace(/#+\s*$/, '')
    .trim();
}

/** GitHub's heading anchor: lower case, punctuation dropped except - and _, spaces to dashes. */
export function githubSlug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** `name`: the framework's name, the title of a README without a top-level heading. */
const TOC_LINE = /^\s*(?:[-*+]|\d+\.)\s*\[[^\]]*\]\(#[^)]*\)\s*$/;

/**
 * Chunks that answer nothing: a table of contents (mostly in-page links, which would match every
 * query about the page) or markup with little prose (badges, sponsor logos, HTML headers).
 */
export function isNoise(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const toc = lines.filter((l) => TOC_LINE.test(l)).length;
  if (toc >= 5 && toc >= lines.length / 2) return true;
  const visible = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/https?:\/\/\S+/g, ' ');
  return (visible.match(/[\p{L}\p{N}_]{2,}/gu) ?? []).length < 8;
}

interface Section {
  /** Offsets of the section in the page: its heading line through the line before the next heading. */
  start: number;
  end: number;
  path: string[];
  anchor: string | null;
  level: number;
}

const ATX = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * Sections by ATX heading (fenced code skipped). Only real Markdown headings count: the shared
 * block parser also promotes short plain lines ("Default: `undefined`") to headings, which suits
 * plain text but breaks the heading paths of API references.
 */
export function sections(markdown: string): Section[] {
  const out: Section[] = [];
  const stack: { level: number; text: string }[] = [];
  const slugs = new Map<string, number>();
  let fence: string | null = null;
  let at = 0;
  let current: Section = { start: 0, end: 0, path: [], anchor: null, level: 0 };
  for (const line of markdown.split('\n')) {
    const lineStart = at;
    at += line.length + 1;
    const f = FENCE.exec(line);
    // CommonMark: a backtick fence's info string has no backtick (else it is inline code), and a
    // closing fence is at least as long as the opening one with nothing after it.
    if (f && !(f[1]![0] === '`' && f[2]!.includes('`'))) {
      if (fence === null) fence = f[1]!;
      else if (f[1]![0] === fence[0] && f[1]!.length >= fence.length && f[2]!.trim() === '') fence = null;
      continue;
    }
    if (fence !== null) continue;
    const m = ATX.exec(line);
    if (!m) continue;
    const text = plainHeading(m[2]!);
    if (!text) continue;
    const level = m[1]!.length;
    current.end = lineStart;
    out.push(current);
    while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, text });
    const base = githubSlug(text);
    const n = slugs.get(base) ?? 0;
    slugs.set(base, n + 1);
    current = { start: lineStart, end: 0, path: stack.map((h) => h.text), anchor: n ? `${base}-${n}` : base, level };
  }
  current.end = markdown.length;
  out.push(current);
  return out.filter((sec) => sec.end > sec.start);
}

/** Sections up to this size are one chunk; longer ones are cut by the Knowledge Hub's chunker. */
const SECTION_MAX_TOKENS = 400;

export async function splitPage(markdown: string, path: string, name: string): Promise<{ title: string; tokens: number; chunks: PageChunk[] }> {
  const secs = sections(markdown);
  const h1 = secs.find((sec) => sec.level === 1);
  const file = path.split('/').pop()!.replace(/\.md$/i, '');
  const title = h1?.path[0] ?? (/^readme$/i.test(file) ? name : file.replace(/[-_]/g, ' '));
  const chunks: PageChunk[] = [];
  let carry = '';
  for (const sec of secs) {
    // A heading with no body of its own (only sub-headings follow) is carried into the next section.
    const text = carry + markdown.slice(sec.start, sec.end);
    const body = markdown.slice(sec.start, sec.end).replace(/^.*\n?/, '');
    if (sec.level > 0 && body.trim() === '') {
      carry = text;
      continue;
    }
    carry = '';
    const path = sec.path[0] === title ? sec.path.slice(1) : sec.path;
    const chunkTitle = [title, ...path].join(' › ');
    const anchor = sec.level === 1 ? null : sec.anchor;
    const tokens = fastCount(text, 'o200k_base');
    const parts = tokens <= SECTION_MAX_TOKENS ? [{ raw_text: text.trim(), tokens }] : await chunkText(text, { withSkeleton: false, max: SECTION_MAX_TOKENS });
    for (const part of parts) {
      if (isNoise(part.raw_text)) continue;
      chunks.push({ title: chunkTitle, anchor, text: part.raw_text.trim(), tokens: part.tokens });
    }
  }
  return { title, tokens: fastCount(markdown, 'o200k_base'), chunks };
}

/** What is embedded and BM25-indexed for a chunk: its title path gives short sections their context. */
export function chunkEmbeddingText(framework: string, title: string, text: string): string {
  return `${framework} › ${title}\n${text}`;
}
