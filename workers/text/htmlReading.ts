// What a reader of a page reads, as a browser's reading view decides: the page's main element when it
// holds most of the text, and never the page's furniture (menus, dialogs, buttons, hidden parts).
// Before, a chapter of the Rust book (mdBook) at balanced kept its keyboard-shortcut help and theme
// menu and hid the whole chapter behind one marker: the furniture came first and took the budget.

/** Elements whose content is furniture whatever their attributes. */
const FURNITURE = new Set(['nav', 'button', 'select', 'dialog', 'datalist']);
/** Roles of furniture: the site's banner (its header) and contentinfo (its footer) among them. */
const FURNITURE_ROLE = /\srole\s*=\s*["']?(?:navigation|menu|menubar|dialog|alertdialog|search|toolbar|tablist|banner|contentinfo)\b/i;
/** Hidden from assistive technology, or a modal (a cookie banner): not what a reader reads. */
const ARIA_HIDDEN = /\saria-(?:hidden|modal)\s*=\s*["']?true\b/i;
/** The bare `hidden` attribute, looked for once quoted values are blanked (`class="x hidden"` is not it). */
const HIDDEN = /\shidden(?=[\s/>=])/i;
const ROLE_MAIN = /\srole\s*=\s*["']?main\b/i;
/** Elements without content: an attribute on them hides nothing after them. */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/** Whether the element opened by `tag` (its whole text, name lowercased) is the page's furniture. */
export function isFurniture(name: string, tag: string): boolean {
  if (FURNITURE.has(name)) return true;
  if (VOID.has(name) || tag.length <= name.length + 2 || tag.endsWith('/>')) return false;
  if (FURNITURE_ROLE.test(tag) || ARIA_HIDDEN.test(tag)) return true;
  return /hidden/i.test(tag) && HIDDEN.test(tag.replace(/"[^"]*"|'[^']*'/g, '""'));
}

/** Whether the element opened by `tag` is the page's main content (`<main>`, or `role="main"`). */
export function isMain(name: string, tag: string): boolean {
  return name === 'main' || (!VOID.has(name) && ROLE_MAIN.test(tag));
}

/**
 * Finds where elements close, nesting counted. Scans are bounded in total (a few times the page), and a
 * name never found closed is not looked for again, so broken pages cost linear time: past the bound an
 * element is read as ordinary content.
 */
export class Closer {
  private lowered: string | null = null;
  private scanned = 0;
  private readonly unclosed = new Set<string>();
  constructor(private readonly html: string) {}

  /** The page in lower case (made once, when first needed), where end tags are looked for. */
  get lower(): string {
    return (this.lowered ??= this.html.toLowerCase());
  }

  /** Offset of the `<` of the tag closing the element `name` whose open tag ends at `from`; -1 when not found. */
  close(name: string, from: number): number {
    if (this.unclosed.has(name) || this.scanned > 4 * this.html.length) return -1;
    const lower = this.lower;
    const open = `<${name}`;
    const shut = `</${name}`;
    const named = (at: number) => !/[a-z0-9-]/.test(lower[at] ?? '');
    let depth = 1;
    let k = from;
    let o = lower.indexOf(open, k);
    for (;;) {
      const c = lower.indexOf(shut, k);
      if (c < 0) break;
      while (o >= 0 && o < c) {
        if (named(o + open.length)) depth++;
        o = lower.indexOf(open, o + 1);
      }
      if (named(c + shut.length) && --depth === 0) {
        this.scanned += c - from;
        return c;
      }
      k = c + 1;
    }
    this.scanned += lower.length - from;
    this.unclosed.add(name);
    return -1;
  }
}
