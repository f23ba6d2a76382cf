// Clauses of a sentence (issue 48: compression inside kept sentences). A long sentence is cut where a
// clause that adds a remark begins (a parenthesis, a dash, "; ", ", which …", ", because …"), so plain
// selection can keep the part that states a fact and hide the rest behind a marker like any unit.
// Hidden at the edge of a kept run, a clause joins the next marker and costs no marker of its own.

/** Where a clause begins: a parenthesis or dash, or the first word after "; ", ")" or a comma before a conjunction. */
const CUT = /,\s+(?=(?:which|whose|and|but|or|so|while|whereas|where|when|because|although|though|unless|since|as well as|so that|including|such as|e\.g\.|i\.e\.|for example|for instance)\b)|\s[—–]\s|\s\(|(?<=;)\s+|(?<=\))\s+/g;
/** A clause needs this many words of its own, or it stays part of the clause before it. */
const MIN_WORDS = 4;
/** Code spans and links are never cut: masked (same length) before boundaries are looked for. */
const UNCUT = /`[^`]*`|!?\[[^\]]*\]\([^)]*\)/g;

const words = (s: string) => s.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

/** Spans [start, end) of a sentence's clauses, tiling it except for the blanks between them. */
export function clauseSpans(sentence: string): Array<{ start: number; end: number }> {
  const masked = sentence.replace(UNCUT, (m) => 'x'.repeat(m.length));
  const starts = [0];
  for (const m of masked.matchAll(CUT)) {
    // " (" and " — " begin at their bracket or dash, the rest at the first word after the blank (the
    // comma of ", which" stays with the clause before, so a marker after it stands apart from the word).
    const start = /^\s[—–(]/.test(m[0]) ? m.index! + 1 : m.index! + m[0].length;
    if (start > starts[starts.length - 1]! && start < sentence.length) starts.push(start);
  }
  // Clauses too short to be worth a unit merge into the one before them (the first into the next).
  const spans: Array<{ start: number; end: number }> = [];
  for (let k = 0; k < starts.length; k++) {
    const start = starts[k]!;
    const end = k + 1 < starts.length ? starts[k + 1]! : sentence.length;
    const last = spans[spans.length - 1];
    if (last && (words(sentence.slice(start, end)) < MIN_WORDS || words(sentence.slice(last.start, last.end)) < MIN_WORDS)) last.end = end;
    else spans.push({ start, end });
  }
  // Blanks between clauses belong to neither (copied or hidden with the run around them).
  for (const s of spans.slice(0, -1)) {
    while (s.end > s.start && /\s/.test(sentence[s.end - 1]!)) s.end--;
  }
  return spans;
}
