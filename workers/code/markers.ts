// Navigable code elisions (docs/markers.md): the label after a skeleton's `…` / `...` with the hidden
// size and the id POST /v1/expand turns back into the source. What is hidden is named by where the
// marker stands (the body after its signature, the rest of a cut doc, a value after its name): a name
// in the label would repeat it, for 1-2 points of savings. Ids and refs are the text engine's
// (workers/text/markers.ts), so one store and one expand serve both engines.
import { REF_PLACEHOLDER } from '../shared/markers.js';
import { countTokens, type TokenizerName } from '../shared/tokens.js';
import type { Edit, Labeler, Mark } from './text.js';

/**
 * Labelers over one source: `label(ref)` gives the `Labeler` that writes ids `<ref>.<n>`. Each marked
 * edit is priced once, with the placeholder ref (same token cost as any ref): an elision whose
 * marker costs at least as many tokens as the source it replaces keeps that source instead.
 */
export function codeLabels(source: string, tokenizer: TokenizerName): (ref: string) => Labeler {
  const hiddenTokens = new Map<Edit, number | null>();
  const text = (edit: Edit & { mark: Mark }, tokens: number, id: string): string => {
    const label = `${tokens} tokens #${id}`;
    // A Python `...` ending its line takes the label as a comment: the line stays valid code.
    return edit.mark.comment && /^[ \t]*(?:#|\n|$)/.test(source.slice(edit.end, edit.end + 200)) ? `  # ${label}` : ` ${label}`;
  };
  return (ref) => (edit, n) => {
    let tokens = hiddenTokens.get(edit);
    if (tokens === undefined) {
      const { from, to, at } = edit.mark;
      const replaced = countTokens(source.slice(edit.start, edit.end), tokenizer);
      const hidden = from === edit.start && to === edit.end ? replaced : countTokens(source.slice(from, to), tokenizer);
      const shown = countTokens(edit.text.slice(0, at) + text(edit, hidden, `${REF_PLACEHOLDER}.0`) + edit.text.slice(at), tokenizer);
      tokens = shown < replaced ? hidden : null;
      hiddenTokens.set(edit, tokens);
    }
    return tokens === null ? null : text(edit, tokens, `${ref}.${n}`);
  };
}

export { originalSpans } from '../shared/spans.js';
