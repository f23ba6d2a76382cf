// RSS 2.0 / RSS 1.0 / Atom feeds with rss-parser (xml2js underneath): each item becomes one markdown
// document keyed by its guid (else link, else title + date).
import Parser from 'rss-parser';
import { fragmentToMarkdown } from './extract.js';

export interface FeedDocument {
  key: string;
  title: string;
  url: string | null;
  published: string | null;
  text: string;
}

export type ParsedFeed = { ok: true; title: string | null; items: FeedDocument[] } | { ok: false; error: string };

type Item = Parser.Item & { 'content:encoded'?: string; id?: string; summary?: string };

export async function parseFeed(xml: string): Promise<ParsedFeed> {
  const text = xml.replace(/^\uFEFF/, '').trim();
  if (!text.startsWith('<')) return { ok: false, error: 'not XML' };
  let feed: Parser.Output<Item>;
  try {
    feed = await new Parser<Record<string, unknown>, Item>({ customFields: { item: ['content:encoded', 'id', 'summary'] } }).parseString(text);
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
  const items: FeedDocument[] = [];
  for (const item of feed.items ?? []) {
    const title = (item.title ?? '').trim() || (item.link ?? '').trim() || 'Untitled item';
    const body = item['content:encoded'] || item.content || item.summary || item.contentSnippet || '';
    const key = (item.guid || item.id || item.link || `${title}|${item.isoDate ?? item.pubDate ?? ''}`).trim();
    const published = item.isoDate ?? item.pubDate ?? null;
    const parts = [`# ${title}`];
    if (item.link) parts.push(`Source: ${item.link}`);
    if (published) parts.push(`Published: ${published}`);
    const md = fragmentToMarkdown(String(body));
    if (md) parts.push(md);
    items.push({ key, title, url: item.link ?? null, published, text: parts.join('\n\n') });
  }
  return { ok: true, title: feed.title?.trim() || null, items };
}
