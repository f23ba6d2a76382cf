// Link and image markup: where links point, and text that is nothing but links, images and tags.

/**
 * Where links and images point (`](target)`, `[label]: target` definitions, HTML src/href): host names,
 * file names and avatar numbers there are not details of the text. Counted, they drew badge rows and
 * contributor avatars into outputs ahead of the sentences around them.
 */
export const LINK_TARGET = /\]\([^)\s\]]*(?:\s+"[^"]*")?\)|^\s{0,3}\[[^\]]+\]:\s*\S+.*$|\b(?:src|href)="[^"]*"/gm;

/** HTML comments: notes to a file's editors that readers never see; their names are not details either. */
export const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

// An image or link (inline, by reference, or a bare [label]) with nothing bracketed inside, or an HTML tag.
// No class runs past the next opening bracket: a unit of 50,000 `[` or `<` is scanned once, not once per bracket.
const LINK_OR_TAG = /!?\[[^[\]]*\](?:\([^)\]]*\)|\[[^[\]]*\])?|<[^<>]*>/g;

/** True for text with no words outside images, links and tags (badge rows, logo lines). */
export function linksOnly(s: string): boolean {
  if (!s.includes('[') && !s.includes('<')) return false;
  // Innermost first: a badge is an image inside a link.
  for (let i = 0, prev = ''; i < 3 && s !== prev; i++) [prev, s] = [s, s.replace(LINK_OR_TAG, ' ')];
  return !/\p{L}/u.test(s);
}

/** Badges are images or links that point somewhere: bare `[labels]` (`createError([status], [message])`) are not. */
const BADGE = /!\[|\]\(|<(?:img|a)\b/i;

/**
 * Where a line's trailing badges begin (`# css-select [![NPM version](…)](…) [![CI](…)](…)`): the
 * first position after a space from which the rest is images, links and tags only, with words
 * before it; -1 when there is none.
 */
export function badgeTailStart(line: string): number {
  for (let i = line.indexOf(' '); i > 0; i = line.indexOf(' ', i + 1)) {
    const rest = line.slice(i + 1);
    if ((rest.startsWith('[') || rest.startsWith('!') || rest.startsWith('<')) && BADGE.test(rest) && linksOnly(rest) && /\p{L}/u.test(line.slice(0, i))) return i + 1;
  }
  return -1;
}
