/**
 * Bare macro invocations (C family). Generated headers put `DEFINE_STACK_OF(X509)` or
 * `DECLARE_ASN1_FUNCTIONS(X509_ALGOR)` on a line of its own, without a `;`: tree-sitter then reads
 * it as the start of a declaration that runs to the next `;`, swallowing hundreds of lines of macros
 * and prototypes into one ERROR. Blanking those lines for the parser (same length, so every offset
 * still points into the original text) keeps the rest of the file parseable; the skeleton is cut
 * from the original text, where the lines are still present.
 */
import type { Edit } from './text.js';

// A whole line `UPPER_CASE_NAME(args)`, args on that line, no `;` `{` `\` after it.
const BARE_CALL = /^([ \t]*)([A-Z_][A-Z0-9_]{2,})[ \t]*\(([^;{}()\n]*(?:\([^;{}()\n]*\)[^;{}()\n]*)*)\)[ \t]*(?=\n|$)/gm;

export interface BareCall {
  start: number;
  end: number;
  indent: string;
  name: string;
  args: string;
}

/**
 * An annotation macro leading a prototype (`__owur int f(void);`, `OSSL_DEPRECATEDIN_3_0 EC_KEY
 * *g(...)`, also alone on the line above it, `NAPI_EXTERN napi_status h(...)`): tree-sitter reads
 * the macro as the type and loses the declaration. Only when a type and a name still follow it, so
 * `BIO_METHOD f(void);` is left alone.
 */
const ANNOTATION = /^([ \t]*)(__[a-z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=(?:[ \t]+|[ \t]*\n[ \t]*)(?:(?:const|unsigned|signed|struct|enum|union)[ \t]+)*[A-Za-z_]\w*(?:\([^()\n]*\))?[ \t*]+\**[ \t]*[A-Za-z_]\w*[ \t]*\()/gm;

/**
 * A type written as a macro call outside preprocessor lines (`STACK_OF(X509) *chain`, `LHASH_OF(T)`):
 * its parentheses read as a call, and the declaration around it is lost. For the parser the call
 * becomes one identifier of the same length (`STACK_OF_X509_`).
 */
const TYPE_MACRO = /\b([A-Z][A-Z0-9]*_OF)\(([A-Za-z_]\w*)\)(?=[ \t]*\*)/g;

function maskTypeMacros(text: string): string {
  if (!text.includes('_OF(')) return text;
  return text
    .split('\n')
    .map((line) => (/^[ \t]*#/.test(line) ? line : line.replace(TYPE_MACRO, (_m: string, macro: string, arg: string) => `${macro}_${arg}_`)))
    .join('\n');
}

/** The text with bare invocation lines and leading annotation macros blanked, and where the calls were. */
export function maskBareCalls(text: string): { text: string; calls: BareCall[] } {
  const calls: BareCall[] = [];
  const annotated = maskTypeMacros(text).replace(ANNOTATION, (_m: string, indent: string, name: string) => indent + ' '.repeat(name.length));
  if (!/^[ \t]*[A-Z_][A-Z0-9_]{2,}[ \t]*\(/m.test(annotated)) return { text: annotated, calls };
  const masked = annotated.replace(BARE_CALL, (line: string, indent: string, name: string, args: string, offset: number) => {
    // `FOO(x)` followed by a body or a continued declaration is a definition, not a bare call.
    const next = /^\s*(\S)/.exec(annotated.slice(offset + line.length, offset + line.length + 200))?.[1];
    if (next === '{' || next === ';' || next === ',') return line;
    calls.push({ start: offset, end: offset + line.length, indent, name, args: args.trim() });
    return ' '.repeat(line.length);
  });
  return { text: masked, calls };
}

/**
 * Consecutive invocations of one single-argument macro on one line (balanced):
 * `DECLARE_ASN1_FUNCTIONS({POLICYINFO, POLICYQUALINFO, USERNOTICE})`.
 */
export function foldBareCalls(source: string, calls: BareCall[], into: Edit[]): void {
  let i = 0;
  while (i < calls.length) {
    const first = calls[i]!;
    // `SKM_DEFINE_STACK_OF_INTERNAL(X509, ...)` right before the `#define sk_X509_*` it generates:
    // the folded macro line below names the same API.
    const type = /^\s*(\w+)/.exec(first.args)?.[1];
    const next = /^\s*#\s*define\s+(\w+)/.exec(source.slice(first.end, first.end + 300));
    if (type && next && next[1]!.includes(`_${type}_`)) {
      into.push({ start: first.start, end: first.end + 1, text: '' });
      i++;
      continue;
    }
    let j = i + 1;
    const single = (c: BareCall): boolean => c.name === first.name && !c.args.includes(',');
    while (single(first) && j < calls.length && single(calls[j]!) && /^\s*$/.test(source.slice(calls[j - 1]!.end, calls[j]!.start))) j++;
    if (j - i > 1) {
      const args = calls.slice(i, j).map((c) => c.args);
      into.push({ start: first.start, end: calls[j - 1]!.end, text: `${first.indent}${first.name}({${args.join(', ')}})` });
    }
    i = j;
  }
}
