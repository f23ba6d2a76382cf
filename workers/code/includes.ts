/**
 * Include runs (C-family balanced and outline): consecutive `#include <dir/name.h>` lines become one
 * line per directory, in the brace notation the macro folding uses (macros.ts):
 * `#include <openssl/{bio, x509, pem}.h>`. Every header name stays; lines with a trailing comment
 * or a quoted path stay as they are. `detailed` keeps the source lines.
 */
const INCLUDE = /^([ \t]*)#[ \t]*include[ \t]*<([^<>\s]+)\/([\w.+-]+?)(\.h|\.hpp|\.hh)?>[ \t]*$/;

export function foldIncludes(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const m = INCLUDE.exec(lines[i]!);
    if (!m) {
      out.push(lines[i]!);
      i++;
      continue;
    }
    const [, indent, dir, , ext = ''] = m;
    const names: string[] = [];
    let j = i;
    for (; j < lines.length; j++) {
      const n = INCLUDE.exec(lines[j]!);
      if (!n || n[1] !== indent || n[2] !== dir || (n[4] ?? '') !== ext) break;
      names.push(n[3]!);
    }
    out.push(names.length === 1 ? lines[i]! : `${indent}#include <${dir}/{${names.join(', ')}}${ext}>`);
    i = j;
  }
  return out.join('\n');
}
