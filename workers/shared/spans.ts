// Offsets between the engine's normalised text and the original a caller sent (used by the host to store spans).

/**
 * Spans over the engine's text (BOM removed, CRLF and CR as LF) as offsets into the original the
 * caller sent, which is what the store keeps and expands. Spans may come in any order: a structural
 * output can mark a class body and then a method body inside it.
 */
export function originalSpans(original: string, content: string, spans: readonly number[]): number[] {
  if (original === content) return [...spans];
  const out = new Array<number>(spans.length);
  let o = original.charCodeAt(0) === 0xfeff ? 1 : 0;
  let c = 0;
  for (const k of spans.map((_, k) => k).sort((a, b) => spans[a]! - spans[b]!)) {
    const target = spans[k]!;
    while (c < target && o < original.length) {
      // One engine character per original one, except CRLF (two originals for one `\n`).
      o += original[o] === '\r' && original[o + 1] === '\n' ? 2 : 1;
      c++;
    }
    out[k] = o;
  }
  return out;
}
