/**
 * Runs of same-shaped variable declarations (C-family balanced): generated headers list hundreds of
 * `extern const unsigned char ossl_der_oid_<name>[DER_OID_SZ_<name>];` or `extern const OPTIONS
 * <cmd>_options[];`. Consecutive declarations that differ only in the declared name (and an array
 * size) share one line listing every name: `extern const OPTIONS {ca_options, dgst_options}[];`.
 */
import { group, render } from './macros.js';

export interface DeclItem {
  /** Declared name. */
  name: string;
  /** Declaration text with the name replaced by `@` and the array size by `…`. */
  shape: string;
  /** Array size text, '' when none. */
  size: string;
  /** Original text (a declaration left alone is printed as written). */
  text: string;
}

function names(items: DeclItem[]): string {
  const parts = group(items.map((d) => d.name));
  return parts.length === 1 && parts[0]!.prefix ? render(parts[0]!) : `{${parts.map(render).join(', ')}}`;
}

/** One line per stretch of same-shaped declarations, in source order. */
export function foldDeclarations(items: DeclItem[], indent: string): string[] {
  const lines: string[] = [];
  let i = 0;
  while (i < items.length) {
    let j = i + 1;
    while (j < items.length && items[j]!.shape === items[i]!.shape) j++;
    const run = items.slice(i, j);
    if (run.length === 1) lines.push(indent + run[0]!.text);
    else {
      const size = run.every((d) => d.size === run[0]!.size) ? run[0]!.size : '…';
      lines.push(indent + run[0]!.shape.replace('@', () => names(run)).replace('[…]', () => `[${size}]`));
    }
    i = j;
  }
  return lines;
}
