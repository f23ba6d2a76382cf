// An HTML page sent to the text engine is compressed as its text: tags, scripts, styles and comments
// cost tokens and say nothing to a reader. Sent as is, a page read as one Markdown HTML block, one
// unit, and a 19,204-token page came back at balanced as `[… 19204 tokens]` alone.
//
// The text is Markdown-shaped so the engine finds its structure: headings as `#`, list items as `- `,
// paragraphs apart, `pre` as fences, inline `code` in backticks. Every character of it knows where it
// came from in the page, so marker spans are told as offsets into the HTML as sent and an id expands
// to the page's own bytes, tags included (as terminal escapes are handled: ../shared/ansi.ts).
import type { Unescaped } from '../shared/ansi.js';
import { countBelow } from '../shared/sorted.js';
import { Closer, isFurniture, isMain } from './htmlReading.js';

/** Elements whose content is never text for a reader. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'object', 'canvas', 'iframe', 'math']);
/** Elements that start and end a paragraph of their own. */
const BLOCK = new Set([
  'p', 'div', 'section', 'article', 'main', 'header', 'footer', 'nav', 'aside', 'ul', 'ol', 'dl', 'dt', 'dd', 'table',
  'thead', 'tbody', 'tfoot', 'blockquote', 'form', 'fieldset', 'figure', 'figcaption', 'details', 'summary', 'address',
  'body', 'html', 'caption', 'center', 'menu',
]);
/** A link whose whole text is a permalink sign, up to its close tag. */
const PERMALINK = /^\s*(?:¶|§|#|🔗|&para;|&sect;|&#182;|&#167;|&#x1f517;)\s*<\/a\s*>/i;
/** HTML's elements, told apart from an XML document's own names. */
const HTML_ELEMENTS = new Set([
  ...SKIPPED, ...BLOCK, 'a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'br', 'button', 'cite', 'code', 'col', 'colgroup', 'data', 'del',
  'dfn', 'em', 'font', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'img', 'input', 'ins', 'kbd', 'label', 'legend', 'li',
  'link', 'mark', 'meta', 'nobr', 'option', 'picture', 'pre', 'q', 's', 'samp', 'select', 'small', 'source', 'span',
  'strong', 'sub', 'sup', 'td', 'textarea', 'th', 'time', 'title', 'tr', 'tt', 'u', 'var', 'video', 'audio', 'wbr',
]);
const ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', reg: '®', trade: '™', hellip: '…', mdash: '—',
  ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', bull: '•', middot: '·', times: '×', laquo: '«', raquo: '»',
  euro: '€', pound: '£', para: '¶', sect: '§', deg: '°', rarr: '→', larr: '←', harr: '↔', uarr: '↑', darr: '↓', zwj: '',
  zwnj: '', shy: '', ensp: ' ', emsp: ' ', thinsp: ' ',
};

/**
 * Whether a text is an HTML page or fragment rather than Markdown that holds some HTML: it opens with
 * a doctype or an `<html>`, `<head>` or `<body>` element, or it is mostly tags (at least a third of its
 * characters) and has no Markdown heading or fence at a line start. A README that opens with
 * `<p align="center">` and goes on in Markdown stays Markdown.
 */
export function looksLikeHtml(text: string): boolean {
  const head = text.slice(0, 2000).replace(/^\uFEFF?\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*/, '');
  if (/^<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/i.test(head)) return true;
  if (!head.startsWith('<') || text.length < 200) return false;
  if (/^(?: {0,3}#{1,6} |[ \t]*```|[ \t]*~~~)/m.test(text)) return false;
  let tagChars = 0;
  let closes = 0;
  let tags = 0;
  let known = 0;
  for (const m of text.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^<>]*>/g)) {
    tagChars += m[0].length;
    tags++;
    if (m[1]) closes++;
    if (HTML_ELEMENTS.has(m[2]!.toLowerCase())) known++;
  }
  // Mostly HTML's own elements: an XML document (a feed, a POM, a manifest) is not a page.
  return closes >= 3 && tagChars * 3 >= text.length && known * 2 >= tags;
}

/** Offsets kept while building: segment k of the text is [cleanStart[k], next) and came from [origStart[k], origEnd[k]) of the page. */
class Builder {
  out: string[] = [];
  length = 0;
  cleanStart: number[] = [];
  origStart: number[] = [];
  origEnd: number[] = [];
  /** Whether segment k is the page's own characters (one for one), not a replacement or an insertion. */
  copied: boolean[] = [];
  /** The last characters written (for blank-line and space decisions). */
  tail = '\n\n';
  /** Line breaks written so far. */
  lines = 0;
  /** Whitespace seen after a word: written as one space before the next word, dropped at a line break. */
  pending: [number, number] | null = null;
  /** A list item's `- ` (its tag's span), written with the item's first text: an item with none (an icon) leaves no empty line. */
  bullet: [number, number] | null = null;

  /** Whitespace of the page at [from, to): one space, if more text follows on the line. */
  space(from: number, to: number): void {
    if (!this.pending && !/\s$/.test(this.tail)) this.pending = [from, to];
  }

  emit(s: string, from: number, to: number, copied = false): void {
    if (!s) return;
    if (this.bullet) {
      // Breaks inside an item before its text (`<li><p>`) are the bullet's own line start.
      if (s.trim() === '') return;
      const [a, z] = this.bullet;
      this.bullet = null;
      this.pending = null;
      this.push('- ', a, z, false);
    }
    if (this.pending) {
      const [a, z] = this.pending;
      this.pending = null;
      if (s[0] !== '\n' && s[0] !== ' ') this.push(' ', a, z, false);
    }
    this.push(s, from, to, copied);
  }

  private push(s: string, from: number, to: number, copied: boolean): void {
    this.cleanStart.push(this.length);
    this.origStart.push(from);
    this.origEnd.push(to);
    this.copied.push(copied);
    this.out.push(s);
    this.length += s.length;
    this.tail = (this.tail + s).slice(-2);
    for (let k = s.indexOf('\n'); k >= 0; k = s.indexOf('\n', k + 1)) this.lines++;
  }

  /** A paragraph break (one blank line), unless the text already ends with one. */
  breakBlock(at: number): void {
    this.pending = null;
    if (this.bullet) return;
    if (this.tail === '\n\n') return;
    this.emit(this.tail.endsWith('\n') ? '\n' : '\n\n', at, at);
  }

  lineBreak(at: number): void {
    this.pending = null;
    if (this.bullet) return;
    if (!this.tail.endsWith('\n')) this.emit('\n', at, at);
  }
}

/**
 * Open tables, so a table reads as a Markdown table: its first row, when it is one line (no blocks in
 * its cells) and the table is not inside another, is followed by a delimiter row, and the engine then
 * keeps a header with its rows and hides rows by count. Other tables stay lines of cells.
 */
class Tables {
  private stack: { rows: number; cells: number; rowOpen: boolean; lineAt: number }[] = [];

  open(): void {
    this.stack.push({ rows: 0, cells: 0, rowOpen: false, lineAt: 0 });
  }

  close(): void {
    this.stack.pop();
  }

  inside(): boolean {
    return this.stack.length > 0;
  }

  startRow(b: Builder): void {
    const t = this.stack[this.stack.length - 1];
    if (!t) return;
    t.rowOpen = true;
    t.cells = 0;
    t.lineAt = b.lines;
  }

  cell(): void {
    const t = this.stack[this.stack.length - 1];
    if (t?.rowOpen) t.cells++;
  }

  /** Ends the open row (at `</tr>`, or where a row's end tag was left out); after the first, the delimiter. */
  endRow(b: Builder, at: number): void {
    const t = this.stack[this.stack.length - 1];
    if (!t?.rowOpen) return;
    t.rowOpen = false;
    if (t.cells === 0) return;
    if (t.rows++ === 0 && this.stack.length === 1 && b.lines === t.lineAt) {
      b.lineBreak(at);
      b.emit(`|${' --- |'.repeat(t.cells)}`, at, at);
    }
  }
}

function decodeEntity(name: string): string | null {
  if (name[0] === '#') {
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : null;
  }
  return ENTITIES[name] ?? ENTITIES[name.toLowerCase()] ?? null;
}

/** End of the tag that starts at `i` (after its `>`), quotes in attribute values respected. */
export function tagEnd(t: string, i: number): number {
  let quote = 0;
  for (let k = i + 1; k < t.length; k++) {
    const c = t.charCodeAt(k);
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 34 || c === 39) quote = c;
    else if (c === 62) return k + 1;
  }
  return t.length;
}

/** The page's main element, found in a first pass: its span and the span of the text read from it. */
interface MainElement {
  start: number;
  end: number;
  /** Offset of its closing tag's `<`. */
  close: number;
  textStart: number;
  textEnd: number;
}

/**
 * The text of an HTML page, Markdown-shaped, with the way back to offsets in the page; null when it has
 * no text. Furniture is never read, and when the page's main element holds at least half the text,
 * only it is read (htmlReading.ts).
 */
export function htmlText(html: string): Unescaped | null {
  const closer = new Closer(html);
  const whole = readPage(html, 0, html.length, closer, true);
  const m = whole.main;
  const b = m && m.textEnd >= 0 && (m.textEnd - m.textStart) * 2 >= whole.b.length ? readPage(html, m.start, m.end, closer, false).b : whole.b;
  return unescaped(b);
}

/** One pass over [from, to) of the page; `findMain` records the first main element met. */
function readPage(html: string, from: number, to: number, closer: Closer, findMain: boolean): { b: Builder; main: MainElement | null } {
  const b = new Builder();
  let pre = 0;
  let i = from;
  let main: MainElement | null = null;
  /** The fence of each open `pre`. */
  const fences: string[] = [];
  const tables = new Tables();
  const n = to;
  const text = (from: number, to: number) => {
    // Runs of whitespace are one space outside <pre>; entities are decoded. Each piece keeps its source.
    let k = from;
    while (k < to) {
      const c = html[k]!;
      if (c === '&') {
        const m = /^&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});?/.exec(html.slice(k, Math.min(to, k + 40)));
        const decoded = m ? decodeEntity(m[1]!) : null;
        if (m && decoded !== null) {
          if (!pre && decoded === ' ') b.space(k, k + m[0].length);
          else b.emit(decoded, k, k + m[0].length);
          k += m[0].length;
          continue;
        }
      }
      if (!pre && /\s/.test(c)) {
        let e = k + 1;
        while (e < to && /\s/.test(html[e]!)) e++;
        b.space(k, e);
        k = e;
        continue;
      }
      // A run of plain characters is copied as one segment.
      let e = k + 1;
      while (e < to && html[e] !== '&' && (pre || !/\s/.test(html[e]!))) e++;
      b.emit(html.slice(k, e), k, e, true);
      k = e;
    }
  };
  while (i < n) {
    if (main && main.textEnd < 0 && i >= main.close) main.textEnd = b.length;
    let lt = html.indexOf('<', i);
    if (lt >= n) lt = -1;
    const stop = lt < 0 ? n : lt;
    if (stop > i) text(i, stop);
    if (lt < 0) break;
    i = lt;
    if (html.startsWith('<!--', i)) {
      const e = html.indexOf('-->', i + 4);
      i = e < 0 ? n : e + 3;
      continue;
    }
    const m = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(i, i + 40));
    if (!m) {
      if (html[i + 1] === '!' || html[i + 1] === '?') {
        i = tagEnd(html, i);
        continue;
      }
      // A lone `<` is text.
      b.emit('<', i, i + 1);
      i++;
      continue;
    }
    const end = tagEnd(html, i);
    const closing = m[1] === '/';
    const name = m[2]!.toLowerCase();
    if (!closing && SKIPPED.has(name) && !html.slice(i, end).endsWith('/>')) {
      // Its content is skipped up to the matching close tag (these elements do not nest in practice).
      const close = closer.lower.indexOf(`</${name}`, end);
      i = close < 0 || close >= n ? n : tagEnd(html, close);
      continue;
    }
    if (!closing) {
      const tag = html.slice(i, end);
      if (findMain && !main && isMain(name, tag)) {
        const close = closer.close(name, end);
        if (close >= 0) main = { start: i, end: tagEnd(html, close), close, textStart: b.length, textEnd: -1 };
      } else if (name === 'a') {
        // A heading's permalink (`¶`, `§`, `#`): one token per heading that says nothing.
        const anchor = PERMALINK.exec(html.slice(end, end + 48));
        if (anchor && end + anchor[0].length <= n) {
          i = end + anchor[0].length;
          continue;
        }
      } else if (isFurniture(name, tag)) {
        // A menu, dialog, button or hidden part: skipped with what it holds, when its end is found.
        const close = closer.close(name, end);
        if (close >= 0 && close < n) {
          i = tagEnd(html, close);
          continue;
        }
      }
    }
    // A heading or a block of code starts its own line, not a list item's.
    if (/^h[1-6]$/.test(name) || name === 'pre') b.bullet = null;
    if (/^h[1-6]$/.test(name)) {
      b.breakBlock(i);
      if (!closing) b.emit(`${'#'.repeat(Number(name[1]))} `, i, end);
    } else if (name === 'pre') {
      if (closing) {
        b.lineBreak(i);
        b.emit(fences.pop() ?? '```', i, end);
        b.breakBlock(end);
        pre = Math.max(0, pre - 1);
      } else {
        // A block that shows Markdown with fences of its own gets a longer fence, so it stays one block.
        // Only an outermost block looks ahead (to its close), so the look-aheads never overlap.
        let fence = '```';
        const close = pre === 0 ? closer.lower.indexOf('</pre', end) : -1;
        if (close >= 0 && close < n) {
          for (const run of html.slice(end, close).match(/^[ \t]*`{3,}/gm) ?? []) {
            if (run.trim().length >= fence.length) fence = '`'.repeat(run.trim().length + 1);
          }
        }
        fences.push(fence);
        b.breakBlock(i);
        b.emit(`${fence}\n`, i, end);
        pre++;
      }
    } else if (name === 'li' || name === 'ul' || name === 'ol') {
      // An item that ends before any text, or a nested list's first item, drops the pending bullet.
      b.bullet = null;
      if (name === 'li' && !closing) {
        b.lineBreak(i);
        b.bullet = [i, end];
      } else if (name !== 'li') b.breakBlock(i);
    } else if (name === 'br') b.emit('\n', i, end);
    else if (name === 'hr') {
      b.breakBlock(i);
      b.emit('---', i, end);
      b.breakBlock(end);
    } else if (name === 'table') {
      if (closing) tables.endRow(b, i);
      b.breakBlock(i);
      if (closing) tables.close();
      else tables.open();
    } else if (name === 'tr') {
      tables.endRow(b, i);
      b.lineBreak(i);
      if (!closing) tables.startRow(b);
    } else if (name === 'td' || name === 'th') {
      if (!closing) {
        b.emit(b.tail.endsWith('\n') ? '| ' : ' | ', i, end);
        tables.cell();
      }
    } else if (tables.inside() && (name === 'thead' || name === 'tbody' || name === 'tfoot')) {
      tables.endRow(b, i);
      b.lineBreak(i);
    } else if (name === 'code' && !pre) b.emit('`', i, end);
    else if (BLOCK.has(name)) b.breakBlock(i);
    i = end;
  }
  if (main && main.textEnd < 0) main.textEnd = b.length;
  return { b, main };
}

/** The builder's text with its map back to the page. */
function unescaped(b: Builder): Unescaped | null {
  const clean = b.out.join('');
  if (clean.trim() === '') return null;
  const { cleanStart, origStart, origEnd, copied } = b;
  return {
    text: clean,
    // A character's own source; at the start of a segment, the end of the one before it, so the tags
    // right before a character are on the original's side of it (as terminal escapes are).
    originalOffset: (k) => {
      // The segment holding k: the last one starting at or before it.
      const seg = countBelow(cleanStart, k + 1) - 1;
      if (seg < 0) return 0;
      if (k >= clean.length) return origEnd[cleanStart.length - 1]!;
      if (cleanStart[seg] === k) return seg > 0 ? origEnd[seg - 1]! : 0;
      // Inside a segment: a copied run maps character by character; a replacement maps to its end.
      return copied[seg] ? origStart[seg]! + (k - cleanStart[seg]!) : origEnd[seg]!;
    },
  };
}
