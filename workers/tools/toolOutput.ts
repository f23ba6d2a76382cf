// compress_tool_output: a pure, linear-time pass over command/tool output (logs, compiler and test
// output, stack traces). Lines are kept verbatim or dropped whole, never rewritten; identifiers of
// dropped lines are listed verbatim in the markers that replace them, so no identifier is lost.
import { ANSI } from '../shared/ansi.js';
import { ALERT } from '../shared/alerts.js';

export interface ToolOutputOptions {
  /** When more lines than this remain after collapsing, plain lines are elided (head, tail and context kept). */
  maxLines?: number;
  /** Lines kept before and after each error/warning line. */
  contextLines?: number;
  headLines?: number;
  tailLines?: number;
}

export interface ToolOutputResult {
  text: string;
  lines_in: number;
  lines_out: number;
  collapsed_runs: number;
  collapsed_lines: number;
  elided_lines: number;
  noise_lines: number;
  important_lines: number;
  identifiers: number;
  /** True when the compressed form would not have been shorter, so the input is returned as is. */
  unchanged: boolean;
}

const URL_RE = /\bhttps?:\/\/[^\s"'<>`)\]]+/g;
const UUID_RE = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const PATH_RE = /(?:[A-Za-z]:\\|~?\/|\.{1,2}\/)?(?:[\w@.+-]+[/\\])+[\w@.+-]*[\w@+-](?::\d+){0,2}/g;
const FILE_RE = /\b[\w.-]+\.(?:[cm]?[jt]sx?|py|rs|go|java|kt|scala|c|cc|cpp|cxx|h|hpp|rb|php|cs|swift|json|ya?ml|toml|lock|md|sh|sql|html|css|vue|svelte)(?::\d+){0,2}\b/g;
const CODE_RE = /\b(?:[A-Z]{1,4}\d{3,5}|E[A-Z]{3,}|ERR_[A-Z0-9_]+|[A-Z][A-Z0-9]*_(?:ERR|ERROR|FAIL|FAILED)(?:_[A-Z0-9]+)*)\b/g;
const HEX8 = /[0-9a-f]{8}-/i;
const HEX12 = /[0-9a-f]{12}/;
const UPPER = /[A-Z]/;
const SHA_RE = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,40}\b/g;

const STACK_FRAME = /^\s+at\s|^\s*File ".+", line \d+|^\s+\S+\.(?:java|kt|scala):\d+\)|^\s*#\d+\s+0x[0-9a-f]+|^\s*\d+:\s+0x[0-9a-f]+|^\s+--> |^\s*Caused by:|^\s*\.\.\. \d+ more/;
const PROGRESS = /^\s*(?:[[(]?[=#>\-.\s█▓▒░■□]*[\])]?\s*)?\d{1,3}(?:\.\d+)?\s?%|^[\s⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏|/\\-]+$/;

/** Every identifier of a line, in order: URLs, UUIDs, error codes, paths and file names, long hex ids. */
export function extractIdentifiers(line: string): string[] {
  const out: string[] = [];
  let rest = line;
  // Cheap guards first: most log lines have no URL, UUID, path or long hex id.
  if (rest.includes('://')) {
    rest = rest.replace(URL_RE, (m) => {
      out.push(m);
      return ' ';
    });
  }
  if (rest.includes('-') && HEX8.test(rest)) {
    rest = rest.replace(UUID_RE, (m) => {
      out.push(m);
      return ' ';
    });
  }
  if (UPPER.test(rest)) for (const m of rest.matchAll(CODE_RE)) out.push(m[0]);
  if (rest.includes('/') || rest.includes('\\')) {
    rest = rest.replace(PATH_RE, (m) => {
      if (/[/\\]/.test(m) && /[\w]/.test(m) && !/^\/+$/.test(m)) out.push(m);
      return ' ';
    });
  }
  if (rest.includes('.')) for (const m of rest.matchAll(FILE_RE)) out.push(m[0]);
  if (HEX12.test(rest)) for (const m of rest.matchAll(SHA_RE)) out.push(m[0]);
  return out;
}

/** A line's shape: identifiers, numbers and quoted strings replaced, so near-duplicates compare equal. */
function shapeOf(line: string): string {
  return line
    .replace(URL_RE, '<url>')
    .replace(UUID_RE, '<uuid>')
    .replace(PATH_RE, '<path>')
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '<s>')
    .replace(/\b0x[0-9a-f]+\b|\b[0-9a-f]{7,}\b/gi, '<hex>')
    .replace(/\d+(?:\.\d+)*/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

function wordsOf(shape: string): string[] {
  return shape.split(' ').filter(Boolean);
}

function similar(a: string[], b: string[]): boolean {
  if (a.length < 2 || b.length < 2 || a[0] !== b[0] || a[1] !== b[1]) return false;
  const sa = new Set(a);
  const sb = new Set(b);
  let inter = 0;
  for (const w of sa) if (sb.has(w)) inter++;
  return inter / (sa.size + sb.size - inter) >= 0.5;
}

/** Cleans terminal artefacts: ANSI escapes, carriage-return overwrites (the last state wins), trailing spaces. */
function cleanLines(input: string): string[] {
  return input
    .replace(ANSI, '')
    .split('\n')
    .map((l) => {
      const parts = l.replace(/\r$/, '').split('\r');
      let last = parts[parts.length - 1]!;
      for (let i = parts.length - 1; i >= 0 && last.trim() === ''; i--) last = parts[i]!;
      return last.trimEnd();
    });
}

interface Entry {
  text: string;
  important: boolean;
  /** Markers and lines inside a collapsed run are never elided. */
  pinned: boolean;
  marker: boolean;
}

function listIds(ids: Iterable<string>, seen: Set<string>): string[] {
  const out: string[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

export function compressToolOutput(input: string, options: ToolOutputOptions = {}): ToolOutputResult {
  const maxLines = options.maxLines ?? 200;
  const context = options.contextLines ?? 2;
  const head = options.headLines ?? 10;
  const tail = options.tailLines ?? 20;
  const lines = cleanLines(input);
  const linesIn = input === '' ? 0 : input.split('\n').length;

  // Identifiers present in lines that stay; markers list only identifiers not already visible.
  const seen = new Set<string>();
  let noise = 0;
  let collapsedRuns = 0;
  let collapsedLines = 0;
  const noiseIds: string[] = [];

  // Per-line facts, computed once: importance (errors, warnings, stack frames) and the shape.
  const importantAt = new Uint8Array(lines.length);
  for (let k = 0; k < lines.length; k++) importantAt[k] = lines[k]!.trim() !== '' && (ALERT.test(lines[k]!) || STACK_FRAME.test(lines[k]!)) ? 1 : 0;
  const shapes: (string | undefined)[] = new Array(lines.length);
  const shapeAt = (k: number) => (shapes[k] ??= shapeOf(lines[k]!));
  const wordCache: (string[] | undefined)[] = new Array(lines.length);
  const wordsAt = (k: number) => (wordCache[k] ??= wordsOf(shapeAt(k)));

  // Pass 1: drop progress/spinner noise, squeeze blank runs, collapse repeated and near-duplicate runs.
  const entries: Entry[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      if (entries.length && entries[entries.length - 1]!.text !== '') entries.push({ text: '', important: false, pinned: false, marker: false });
      i++;
      continue;
    }
    if (!importantAt[i] && PROGRESS.test(line)) {
      noise++;
      noiseIds.push(...extractIdentifiers(line));
      i++;
      continue;
    }
    const important = importantAt[i] === 1;
    let j = i + 1;
    if (important) {
      // Errors, warnings and frames only collapse when identical.
      while (j < lines.length && lines[j] === line) j++;
    } else {
      const shape = shapeAt(i);
      while (j < lines.length && !importantAt[j] && lines[j]!.trim() !== '') {
        if (shapeAt(j) !== shape && !similar(wordsAt(i), wordsAt(j))) break;
        j++;
      }
    }
    const run = j - i;
    if (run === 1) {
      entries.push({ text: line, important, pinned: false, marker: false });
    } else if (lines.slice(i, j).every((l) => l === line)) {
      collapsedRuns++;
      collapsedLines += run - 1;
      entries.push({ text: `${line} [×${run}]`, important, pinned: important, marker: false });
    } else if (run === 2) {
      entries.push({ text: line, important, pinned: false, marker: false }, { text: lines[i + 1]!, important, pinned: false, marker: false });
    } else {
      collapsedRuns++;
      collapsedLines += run - 2;
      const first = line;
      const last = lines[j - 1]!;
      extractIdentifiers(first).forEach((id) => seen.add(id));
      extractIdentifiers(last).forEach((id) => seen.add(id));
      const varying = listIds(lines.slice(i + 1, j - 1).flatMap(extractIdentifiers), seen);
      entries.push(
        { text: first, important, pinned: true, marker: false },
        { text: `[… ${run - 2} similar lines${varying.length ? `; varying: ${varying.join(', ')}` : ''}]`, important: false, pinned: true, marker: true },
        { text: last, important, pinned: true, marker: false },
      );
    }
    i = j;
  }
  while (entries.length && entries[entries.length - 1]!.text === '') entries.pop();

  // Pass 2: elide plain lines beyond maxLines, keeping head, tail, pinned runs and error context.
  let elided = 0;
  let out: string[];
  if (entries.length > maxLines) {
    const keep = new Uint8Array(entries.length);
    for (let k = 0; k < entries.length; k++) {
      const e = entries[k]!;
      if (k < head || k >= entries.length - tail || e.pinned) keep[k] = 1;
      if (e.important) for (let c = Math.max(0, k - context); c <= Math.min(entries.length - 1, k + context); c++) keep[c] = 1;
    }
    for (let k = 0; k < entries.length; k++) if (keep[k]) extractIdentifiers(entries[k]!.text).forEach((id) => seen.add(id));
    out = [];
    let k = 0;
    while (k < entries.length) {
      if (keep[k]) {
        out.push(entries[k]!.text);
        k++;
        continue;
      }
      let m = k;
      while (m < entries.length && !keep[m]) m++;
      const dropped = entries.slice(k, m).filter((e) => e.text !== '');
      elided += dropped.length;
      const ids = listIds(dropped.flatMap((e) => extractIdentifiers(e.text)), seen);
      if (dropped.length) out.push(`[… ${dropped.length} lines elided${ids.length ? `; identifiers: ${ids.join(', ')}` : ''}]`);
      k = m;
    }
  } else {
    out = entries.map((e) => e.text);
    for (const t of out) extractIdentifiers(t).forEach((id) => seen.add(id));
  }
  if (noise) {
    const ids = listIds(noiseIds, seen);
    out.push(`[… ${noise} progress lines dropped${ids.length ? `; identifiers: ${ids.join(', ')}` : ''}]`);
  }
  const text = out.join('\n');
  const important = entries.filter((e) => e.important).length;
  if (text.length >= input.length) {
    return {
      text: input, lines_in: linesIn, lines_out: linesIn, collapsed_runs: 0, collapsed_lines: 0, elided_lines: 0, noise_lines: 0,
      important_lines: important, identifiers: new Set(extractIdentifiers(input.replace(ANSI, ''))).size, unchanged: true,
    };
  }
  return {
    text, lines_in: linesIn, lines_out: out.length, collapsed_runs: collapsedRuns, collapsed_lines: collapsedLines,
    elided_lines: elided, noise_lines: noise, important_lines: important, identifiers: seen.size, unchanged: false,
  };
}
