// What a reader sees of a text: terminal output without its escapes, an HTML page as its text
// (Markdown-shaped, html.ts). One rule for every engine that reads text: the text engine compresses
// the text as read, the Knowledge Hub chunks, embeds and indexes it.
import { withoutAnsi, type Unescaped } from '../shared/ansi.js';
import { htmlText, looksLikeHtml } from './html.js';

/** The text as read, with the way back to offsets of the text as sent; null when the two are the same. */
export function textAsRead(text: string): Unescaped | null {
  return withoutAnsi(text) ?? (looksLikeHtml(text) ? htmlText(text) : null);
}
