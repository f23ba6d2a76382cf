// XML sitemaps (sitemaps.org): a urlset of <url><loc/><lastmod/></url>, or a sitemapindex of <sitemap><loc/></sitemap>.
import { DOMParser } from 'linkedom';

export interface SitemapEntry {
  loc: string;
  lastmod: string | null;
}

export type ParsedSitemap =
  | { ok: true; kind: 'urlset' | 'sitemapindex'; entries: SitemapEntry[] }
  | { ok: false; error: string };

export function parseSitemap(xml: string): ParsedSitemap {
  const text = xml.replace(/^\uFEFF/, '').trim();
  if (!text.startsWith('<')) return { ok: false, error: 'not XML' };
  let doc: Document;
  try {
    doc = new DOMParser().parseFromString(text, 'text/xml') as unknown as Document;
  } catch (err) {
    return { ok: false, error: `not well-formed XML: ${err instanceof Error ? err.message : String(err)}` };
  }
  const root = doc.documentElement;
  const name = (root?.localName ?? root?.tagName ?? '').toLowerCase().replace(/^.*:/, '');
  if (name !== 'urlset' && name !== 'sitemapindex') return { ok: false, error: `the root element is <${name || 'none'}>, not <urlset> or <sitemapindex>` };
  const child = name === 'urlset' ? 'url' : 'sitemap';
  const entries: SitemapEntry[] = [];
  for (const el of Array.from(root.children)) {
    if ((el.localName ?? el.tagName).toLowerCase().replace(/^.*:/, '') !== child) continue;
    let loc: string | null = null;
    let lastmod: string | null = null;
    for (const f of Array.from(el.children)) {
      const tag = (f.localName ?? f.tagName).toLowerCase().replace(/^.*:/, '');
      if (tag === 'loc') loc = (f.textContent ?? '').trim();
      else if (tag === 'lastmod') lastmod = (f.textContent ?? '').trim() || null;
    }
    if (loc) entries.push({ loc, lastmod });
  }
  return { ok: true, kind: name, entries };
}
