// compress_mcp_registry / gc_compress_manifest: shorter tool descriptions, input schemas untouched.

/** Descriptions are cut to their first sentence, and to at most this many characters. */
export const DEFAULT_MAX_DESCRIPTION_CHARS = 160;

/**
 * The first sentence of a description, with Markdown emphasis, code fences and extra whitespace
 * removed; cut at a word boundary to maxChars. Never longer than the input.
 */
export function shortenDescription(description: string, maxChars = DEFAULT_MAX_DESCRIPTION_CHARS): string {
  const plain = description
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/\*\*|__/g, '')
    .replace(/^\s*[-*#>]+\s*/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
  // A sentence ends at . ! ? followed by a space and an upper-case letter, or a blank line / end.
  const m = /^(.+?[.!?])(?=\s+["'(\[]?[A-Z0-9]|\s*$)/.exec(plain);
  let first = (m ? m[1]! : plain).trim();
  if (first.length > maxChars) {
    const cut = first.slice(0, maxChars - 1);
    const space = cut.lastIndexOf(' ');
    first = `${(space > maxChars * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, '')}…`;
  }
  return first.length < description.length ? first : description;
}

export interface ToolDef {
  name: string;
  description?: string;
  inputSchema?: unknown;
  [k: string]: unknown;
}

/**
 * Returns new tool objects whose description is shortened; every other field, including
 * inputSchema, is the very same value (same object, same key order), so its JSON is byte-identical.
 */
export function compressToolDefs(tools: ToolDef[], maxChars = DEFAULT_MAX_DESCRIPTION_CHARS): { tools: ToolDef[]; descriptions_shortened: number } {
  let shortened = 0;
  const out = tools.map((t) => {
    if (typeof t.description !== 'string') return t;
    const d = shortenDescription(t.description, maxChars);
    if (d === t.description) return t;
    shortened++;
    const copy: ToolDef = {} as ToolDef;
    for (const key of Object.keys(t)) copy[key] = key === 'description' ? d : t[key];
    return copy;
  });
  return { tools: out, descriptions_shortened: shortened };
}
