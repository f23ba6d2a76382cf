import { createHash } from 'node:crypto';
import { extractPage, type ExtractedPage } from './extract.js';
import { parseFeed } from './feed.js';
import { rankHits, type SearchHit } from './rank.js';
import { parseSitemap } from './sitemap.js';

export interface SourceDocument {
  key: string;
  /** html is reduced to its main content; markdown and text are kept as they are. */
  kind: 'html' | 'markdown' | 'text';
  body: string;
  title?: string | null;
  url?: string | null;
}

export interface PreparedDocument {
  key: string;
  title: string | null;
  url: string | null;
  text: string;
  /** sha256 of the text: an unchanged item is not ingested again. */
  hash: string;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function prepare(d: SourceDocument): PreparedDocument {
  if (d.kind === 'html') {
    const page = extractPage(d.body);
    return { key: d.key, title: page.title ?? d.title ?? null, url: d.url ?? null, text: page.markdown, hash: sha256(page.markdown) };
  }
  const heading = /^\s{0,3}#\s+(.+)$/m.exec(d.body)?.[1]?.trim() ?? null;
  return { key: d.key, title: heading ?? d.title ?? null, url: d.url ?? null, text: d.body, hash: sha256(d.body) };
}

/** Pool tasks of the web area (docs/web-and-connectors.md): parsing and extraction never run on the event loop. */
export const webTasks = {
  webExtract: (i: { html: string }): ExtractedPage & { hash: string } => {
    const page = extractPage(i.html);
    return { ...page, hash: sha256(page.markdown) };
  },
  webParseFeed: async (i: { xml: string }) => {
    const feed = await parseFeed(i.xml);
    if (!feed.ok) return feed;
    return { ...feed, items: feed.items.map((it) => ({ ...it, hash: sha256(it.text) })) };
  },
  webParseSitemap: (i: { xml: string }) => parseSitemap(i.xml),
  webPrepareDocuments: (i: { docs: SourceDocument[] }): PreparedDocument[] => i.docs.map(prepare),
  webRankHits: (i: { query: string; hits: SearchHit[] }) => rankHits(i.query, i.hits),
};
