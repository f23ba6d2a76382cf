/**
 * C-family balanced rendering of `#define` runs. Generated headers (OpenSSL) are half macros; an
 * agent reading an API surface needs every macro name, rarely its replacement text. A run of
 * consecutive definitions becomes one line per shared `_`-bounded name prefix, in the brace notation
 * the headers use themselves (`UI_{add,dup}_..._string`): `#define SSL_MODE_{AUTO_RETRY, ASYNC}`.
 * Function-like members end in `()`. A lone definition keeps its parameters and a short value.
 */

export interface MacroItem {
  name: string;
  /** Parameter list text (`(a, b)`) of a function-like macro, else null. */
  params: string | null;
  /** Replacement text of an object-like macro (single line, trimmed), else ''. */
  value: string;
}

/** Shortest shared prefix worth a group (`sk_`, `V_`). */
const MIN_PREFIX = 2;

/** Longest common prefix of two names, cut after its last `_`. */
function sharedPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const cut = a.lastIndexOf('_', i - 1);
  return cut >= 0 ? a.slice(0, cut + 1) : '';
}

export interface Part {
  /** Group prefix ('' for a plain name). */
  prefix: string;
  /** Plain name (with `()` marker) or the rendered member list of a group. */
  body: string;
}

export const render = (p: Part): string => (p.prefix ? `${p.prefix}{${p.body}}` : p.body);

/** Greedy grouping of consecutive names by shared prefix, recursively inside each group. */
export function group(names: string[]): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < names.length) {
    const pre = i + 1 < names.length ? sharedPrefix(names[i]!, names[i + 1]!) : '';
    // A name that is the prefix itself (`FOO_` next to `FOO_BAR`) would leave an empty member.
    if (pre.length < MIN_PREFIX || names[i]!.length === pre.length || names[i + 1]!.length === pre.length) {
      parts.push({ prefix: '', body: names[i]! });
      i++;
      continue;
    }
    let j = i + 2;
    while (j < names.length && names[j]!.startsWith(pre) && names[j]!.length > pre.length) j++;
    const inner = group(names.slice(i, j).map((n) => n.slice(pre.length)));
    parts.push({ prefix: pre, body: inner.map(render).join(', ') });
    i = j;
  }
  return crossMerge(parts);
}

/**
 * Adjacent groups with the same members (one per `STACK_OF` type: `sk_X509_{num(), push()}`,
 * `sk_X509_CRL_{num(), push()}`) share one member list: `sk_{X509, X509_CRL}_{num(), push()}`.
 */
function crossMerge(parts: Part[]): Part[] {
  const out: Part[] = [];
  let i = 0;
  while (i < parts.length) {
    const p = parts[i]!;
    let j = i + 1;
    while (p.prefix && j < parts.length && parts[j]!.prefix && parts[j]!.body === p.body) j++;
    if (j - i < 2) {
      out.push(p);
      i++;
      continue;
    }
    const prefixes = parts.slice(i, j).map((q) => q.prefix);
    // Every prefix ends in `_`: keep that tail, factor out the shared head.
    let head = prefixes.slice(1).reduce((h, q) => sharedPrefix(h, q), prefixes[0]!);
    // `sk_X509_` and `sk_X509_CRL_` share `sk_X509_`: back off to `sk_` so no middle is empty.
    while (head && prefixes.some((q) => q.length - 1 <= head.length)) head = head.slice(0, head.lastIndexOf('_', head.length - 2) + 1);
    const middles = prefixes.map((q) => q.slice(head.length, -1));
    out.push({ prefix: `${head}{${middles.join(', ')}}_`, body: p.body });
    i = j;
  }
  return out;
}

/** Values longer than this are elided on a lone definition. */
const MAX_VALUE = 24;

/** One definition on its own: name, parameters, short value; function-like bodies elided. */
function single(item: MacroItem): string {
  if (item.params !== null) return `#define ${item.name}${item.params} …`;
  if (!item.value) return `#define ${item.name}`;
  return item.value.length <= MAX_VALUE ? `#define ${item.name} ${item.value}` : `#define ${item.name} …`;
}

/** Member lists at least this long are written once per file, later groups point back to them. */
const MIN_SHARED = 60;

/** A family of at least this many constants (object-like, one prefix) is summarised by its count. */
const MIN_FAMILY = 4;

/** Names a brace pattern stands for: `A_{B, C_{D, E}}` -> A_B, A_C_D, A_C_E. */
export function expand(pattern: string): string[] {
  let out = [''];
  let i = 0;
  while (i < pattern.length) {
    if (pattern[i] !== '{') {
      const next = pattern.indexOf('{', i);
      const lit = pattern.slice(i, next < 0 ? undefined : next);
      out = out.map((o) => o + lit);
      i += lit.length;
      continue;
    }
    // Split the brace body at top-level commas, expanding each alternative recursively.
    let depth = 0;
    let start = i + 1;
    const alts: string[] = [];
    let j = i;
    for (; j < pattern.length; j++) {
      const ch = pattern[j];
      if (ch === '{') depth++;
      else if (ch === '}' && --depth === 0) break;
      else if (ch === ',' && depth === 1) {
        alts.push(pattern.slice(start, j).trim());
        start = j + 1;
      }
    }
    alts.push(pattern.slice(start, j).trim());
    const expanded = alts.flatMap(expand);
    out = out.flatMap((o) => expanded.map((e) => o + e));
    i = j + 1;
  }
  return out;
}

// `#define SSL_OP_* (36 constants, as a C comment)` plus the group's function-like members; null below MIN_FAMILY.
function summariseConstants(p: Part, indent: string): string | null {
  const family = render(p);
  const leaves = expand(family);
  const constants = leaves.filter((n) => !n.endsWith('()')).length;
  if (constants < MIN_FAMILY) return null;
  const line = `${indent}#define ${p.prefix.includes('{') ? family : `${p.prefix}*`} /* ${constants} constants */`;
  const functions = leaves.filter((n) => n.endsWith('()'));
  if (!functions.length) return line;
  if (p.prefix.includes('{')) return null; // a cross-merged mix is rare: keep it whole
  return `${indent}#define ${render({ prefix: p.prefix, body: group(functions.map((n) => n.slice(p.prefix.length))).map(render).join(', ') })}\n${line.replace('*/', 'besides these */')}`;
}

/**
 * Render a run of consecutive definitions (in source order), one line per prefix group. `seen` is
 * per file: a long member list met again (the same two dozen `sk_<TYPE>_*` macros after every
 * `STACK_OF` type) becomes `#define sk_X509_{… as sk_GENERAL_NAME_}`.
 */
export function foldMacros(items: MacroItem[], indent: string, seen: Map<string, string>): string {
  if (items.length === 1) return indent + single(items[0]!);
  const names = items.map((it) => (it.params !== null ? `${it.name}()` : it.name));
  return group(names)
    .map((p) => {
      if (!p.prefix) return indent + single(items[names.indexOf(p.body)]!);
      // Constant families (error codes, option bits) are API by prefix: name the family and its size;
      // function-like members keep their names.
      const summary = summariseConstants(p, indent);
      if (summary) return summary;
      const first = p.body.length >= MIN_SHARED ? seen.get(p.body) : undefined;
      if (p.body.length >= MIN_SHARED && !first) seen.set(p.body, p.prefix);
      return `${indent}#define ${first ? `${p.prefix}{… as ${first}}` : render(p)}`;
    })
    .join('\n');
}
