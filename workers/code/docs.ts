/**
 * Leading-paragraph docs (C-family balanced). Header comments often run to dozens of lines of
 * background; the first sentence of the first paragraph says what the definition is for, and
 * `detailed` keeps the rest.
 */

/** Comment text of a line without its markers (`//`, `/*`, `*`, `*\/`). */
function content(line: string): string {
  return line
    .trim()
    .replace(/^\/\/+!?/, '')
    .replace(/^\/\*+[-!]?/, '')
    .replace(/\*+\/$/, '')
    .replace(/^\*+/, '')
    .trim();
}

/** Whether a block comment is still open after these lines. */
function openAfter(lines: string[]): boolean {
  let open = false;
  for (const line of lines) for (const m of line.matchAll(/\/\*|\*\//g)) open = m[0] === '/*';
  return open;
}

/**
 * The comment region cut to the first sentence of its leading paragraph (at most maxLines lines of text), marked with
 * ` …` and closed in its own syntax; null when nothing would be cut.
 */
export function leadingParagraph(text: string, maxLines: number): string | null {
  const lines = text.split('\n');
  let kept = 0;
  let last = -1;
  for (let i = 0; i < lines.length; i++) {
    const c = content(lines[i]!);
    if (!c) {
      if (kept > 0) break;
      continue;
    }
    kept++;
    last = i;
    // The first sentence is the summary (the Javadoc convention): stop on the line that ends it.
    if (kept >= maxLines || /[.!?](\s|$)/.test(c)) break;
  }
  if (last < 0 || lines.slice(last + 1).every((l) => !content(l))) return null;
  // A cut block comment becomes one line: its layout (`/*`, ` * `, ` */` lines) costs tokens, not meaning.
  const first = lines.find((l) => l.trim())!;
  if (/^\s*\/\*/.test(first) && !/\*\//.test(lines.slice(0, last + 1).join('\n'))) {
    const words = lines.slice(0, last + 1).map(content).filter(Boolean).join(' ');
    return `${/^\s*/.exec(first)![0]}/* ${words} … */`;
  }
  const out = lines.slice(0, last + 1);
  const tail = out[last]!;
  if (/\*\/\s*$/.test(tail)) return out.join('\n'); // cut falls between two comments
  if (!openAfter(out)) {
    out[last] = `${tail} …`;
    return out.join('\n');
  }
  // Reuse the block's own closing line (` */`) when it stands alone, else close on the kept line.
  const close = lines.slice(last + 1).find((l) => /\*\//.test(l));
  if (close && /^\s*\*+\/\s*$/.test(close)) return `${out.join('\n')} …\n${close}`;
  out[last] = `${tail} … */`;
  return out.join('\n');
}

/**
 * A Python docstring (`"""…"""`, any prefix or quote style) cut to the first sentence of its first
 * paragraph, marked with ` …` and closed with its own quotes; null when nothing would be cut.
 */
export function docstringSummary(literal: string): string | null {
  const m = /^([rRuUbBfF]{0,2})("""|'''|"|')([\s\S]*)\2$/.exec(literal);
  if (!m) return null;
  const [, prefix, quote, body] = m as unknown as [string, string, string, string];
  const lines = body.split('\n').map((l) => l.trim());
  const para: string[] = [];
  for (const l of lines) {
    if (!l) {
      if (para.length) break;
      continue;
    }
    para.push(l);
  }
  if (!para.length) return null;
  const joined = para.join(' ');
  const end = /[.!?](?=\s|$)/.exec(joined);
  const summary = end ? joined.slice(0, end.index + 1) : joined;
  if (summary === body.trim().replace(/\s+/g, ' ')) return null;
  return `${prefix}${quote}${summary} …${quote}`;
}
