// Reading a connector's source: an RSS/Atom feed, an XML sitemap (and its pages), or a folder under
// the configured root. Every URL goes through the web area's SSRF guard; parsing, extraction and
// hashing run in the pool.
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { WebSettings } from '../../config.js';
import type { PreparedDocument, SourceDocument } from '../../../workers/web/tasks.js';
import type { Services } from '../../services.js';
import { runTask } from '../compute.js';
import { DomainError, invalid } from '../errors.js';
import { FetchRefusedError } from '../platform/ssrf.js';
import { guardedGet, mediaType, refusal } from '../web/guard.js';
import { HTML_TYPES, PAGE_TYPES } from '../web/lookup.js';
import type { FeedItemRow, FeedRow } from './feeds.js';

export const XML_TYPES = ['application/rss+xml', 'application/atom+xml', 'application/rdf+xml', 'application/feed+xml', 'application/xml', 'text/xml'] as const;
export const FOLDER_EXTENSIONS = ['.md', '.markdown', '.txt', '.html', '.htm'] as const;
/** Child sitemaps of a sitemap index read in one sync. */
export const MAX_CHILD_SITEMAPS = 10;
const PAGE_CONCURRENCY = 3;
const MAX_FOLDER_DEPTH = 8;

export interface SourceRead {
  docs: PreparedDocument[];
  /** Items the source listed (within max_items). */
  seen: number;
  /** Keys skipped before fetching because the source says they did not change (sitemap lastmod). */
  unchangedKeys: string[];
  lastmods: Map<string, string | null>;
  failed: { key: string; error: string }[];
  notModified: boolean;
  etag: string | null;
  lastModified: string | null;
}

const empty = (): SourceRead => ({ docs: [], seen: 0, unchangedKeys: [], lastmods: new Map(), failed: [], notModified: false, etag: null, lastModified: null });

function describe(err: unknown): string {
  if (err instanceof FetchRefusedError) return `fetch_refused (${err.reason}): ${err.message}`;
  if (err instanceof DomainError) return err.detail;
  return err instanceof Error ? err.message : String(err);
}

export async function readSource(services: Services, feed: FeedRow, known: Map<string, FeedItemRow>): Promise<SourceRead> {
  if (feed.type === 'rss') return readRss(services, feed);
  if (feed.type === 'sitemap') return readSitemap(services, feed, known);
  return readFolder(services, feed);
}

async function readRss(services: Services, feed: FeedRow): Promise<SourceRead> {
  const out = empty();
  const headers: Record<string, string> = { accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9' };
  if (feed.etag) headers['if-none-match'] = feed.etag;
  if (feed.last_modified) headers['if-modified-since'] = feed.last_modified;
  const res = await guardedGet(services.config.web, feed.source, { accept: XML_TYPES, headers }).catch((err) => refusal(err, 'feed'));
  out.etag = res.etag;
  out.lastModified = res.lastModified;
  if (res.status === 304) {
    out.notModified = true;
    return out;
  }
  const parsed = await runTask(services, 'webParseFeed', { xml: res.body }, { owner: feed.owner_id });
  if (!parsed.ok) throw invalid(`malformed_feed: ${feed.source} is not a valid RSS or Atom feed (${parsed.error})`, { code: 'malformed_feed' });
  const items = parsed.items.slice(0, feed.max_items);
  out.seen = items.length;
  out.docs = items.map((it) => ({ key: it.key, title: it.title, url: it.url, text: it.text, hash: it.hash }));
  return out;
}

async function fetchSitemap(settings: WebSettings, services: Services, feed: FeedRow, url: string) {
  const res = await guardedGet(settings, url, { accept: XML_TYPES }).catch((err) => refusal(err, 'sitemap'));
  const parsed = await runTask(services, 'webParseSitemap', { xml: res.body }, { owner: feed.owner_id });
  if (!parsed.ok) throw invalid(`malformed_sitemap: ${url} is not a valid XML sitemap (${parsed.error})`, { code: 'malformed_sitemap' });
  return parsed;
}

async function readSitemap(services: Services, feed: FeedRow, known: Map<string, FeedItemRow>): Promise<SourceRead> {
  const out = empty();
  const settings = services.config.web;
  const top = await fetchSitemap(settings, services, feed, feed.source);
  let entries = top.kind === 'urlset' ? top.entries : [];
  if (top.kind === 'sitemapindex') {
    for (const child of top.entries.slice(0, MAX_CHILD_SITEMAPS)) {
      if (entries.length >= feed.max_items) break;
      try {
        const sub = await fetchSitemap(settings, services, feed, child.loc);
        if (sub.kind === 'urlset') entries = entries.concat(sub.entries);
      } catch (err) {
        out.failed.push({ key: child.loc, error: describe(err) });
      }
    }
  }
  entries = [...new Map(entries.map((e) => [e.loc, e])).values()].slice(0, feed.max_items);
  out.seen = entries.length;
  const toFetch = entries.filter((e) => {
    out.lastmods.set(e.loc, e.lastmod);
    const prev = known.get(e.loc);
    // The sitemap says the page has not changed since we ingested it: no fetch at all.
    if (prev && e.lastmod && prev.lastmod === e.lastmod) {
      out.unchangedKeys.push(e.loc);
      return false;
    }
    return true;
  });
  // Fetched and prepared a few pages at a time: raw pages are dropped once extracted.
  for (let i = 0; i < toFetch.length; i += PAGE_CONCURRENCY) {
    const sources: SourceDocument[] = [];
    await Promise.all(
      toFetch.slice(i, i + PAGE_CONCURRENCY).map(async (e) => {
        try {
          const page = await guardedGet(settings, e.loc, { accept: PAGE_TYPES });
          const html = (HTML_TYPES as readonly string[]).includes(mediaType(page.contentType));
          sources.push({ key: e.loc, kind: html ? 'html' : 'text', body: page.body, url: page.finalUrl });
        } catch (err) {
          out.failed.push({ key: e.loc, error: describe(err) });
        }
      }),
    );
    if (sources.length) out.docs.push(...(await runTask(services, 'webPrepareDocuments', { docs: sources }, { owner: feed.owner_id })));
  }
  return out;
}

/**
 * The directory a folder feed reads: `source` relative to the configured root, resolved with symlinks
 * and required to stay inside it (no `..`, no absolute path elsewhere, no link out).
 */
export async function folderPath(settings: WebSettings, source: string): Promise<{ root: string; dir: string }> {
  if (!settings.folderRoot) {
    throw invalid('connector_type_unavailable: folder feeds are disabled on this server (CONNECTOR_FOLDER_ROOT is not set)', { code: 'connector_type_unavailable' });
  }
  const root = await realpath(settings.folderRoot).catch(() => {
    throw invalid('connector_type_unavailable: the configured folder root does not exist', { code: 'connector_type_unavailable' });
  });
  if (source.includes('\0')) throw invalid('path_refused: source contains a NUL byte', { code: 'path_refused' });
  const target = isAbsolute(source) ? resolve(source) : resolve(root, source);
  const lexical = relative(root, target);
  if (lexical.startsWith('..') || isAbsolute(lexical)) throw invalid(`path_refused: '${source}' is outside the connector folder root`, { code: 'path_refused' });
  const dir = await realpath(target).catch(() => {
    throw invalid(`folder_not_found: '${source}' does not exist under the connector folder root`, { code: 'folder_not_found' });
  });
  if (dir !== root && !dir.startsWith(root + sep)) throw invalid(`path_refused: '${source}' leads outside the connector folder root`, { code: 'path_refused' });
  if (!(await stat(dir)).isDirectory()) throw invalid(`folder_not_found: '${source}' is not a directory`, { code: 'folder_not_found' });
  return { root, dir };
}

async function readFolder(services: Services, feed: FeedRow): Promise<SourceRead> {
  const out = empty();
  const settings = services.config.web;
  const { root, dir } = await folderPath(settings, feed.source);
  const files: string[] = [];
  const walk = async (d: string, depth: number): Promise<void> => {
    if (depth > MAX_FOLDER_DEPTH || files.length >= feed.max_items) return;
    const entries = (await readdir(d, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (files.length >= feed.max_items) return;
      if (e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p, depth + 1);
      else if ((e.isFile() || e.isSymbolicLink()) && (FOLDER_EXTENSIONS as readonly string[]).includes(extname(e.name).toLowerCase())) files.push(p);
    }
  };
  await walk(dir, 0);
  out.seen = files.length;
  let sources: SourceDocument[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (sources.length) out.docs.push(...(await runTask(services, 'webPrepareDocuments', { docs: sources }, { owner: feed.owner_id })));
    sources = [];
    batchBytes = 0;
  };
  for (const p of files) {
    const key = relative(dir, p).split(sep).join('/');
    try {
      // A link may point anywhere: the file read is the resolved one, and it must be under the root.
      const real = await realpath(p);
      if (!real.startsWith(root + sep)) throw new Error('the file links outside the connector folder root');
      const info = await lstat(real);
      if (!info.isFile()) throw new Error('not a regular file');
      if (info.size > settings.maxBytes) throw new Error(`the file (${info.size} bytes) exceeds ${settings.maxBytes} bytes`);
      const body = await readFile(real, 'utf8');
      const ext = extname(p).toLowerCase();
      sources.push({ key, kind: ext === '.html' || ext === '.htm' ? 'html' : ext === '.txt' ? 'text' : 'markdown', body, title: key });
      batchBytes += info.size;
    } catch (err) {
      out.failed.push({ key, error: describe(err) });
    }
    // Raw files are held one pool batch (about one WEB_MAX_BYTES) at a time.
    if (batchBytes >= settings.maxBytes || sources.length >= 32) await flush();
  }
  await flush();
  return out;
}
