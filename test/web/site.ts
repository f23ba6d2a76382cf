// A local web site over a real socket for the web and connector tests: pages, feeds, sitemaps, and
// the bad cases (redirects to private addresses, oversize bodies, wrong types, a server that never answers).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Route {
  status?: number;
  type?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Omit Content-Length (chunked), so the size cap must count the bytes as they come. */
  chunked?: boolean;
  /** Never answer (timeouts). */
  hang?: boolean;
}

export class LocalSite {
  private server: Server | null = null;
  port = 0;
  readonly routes = new Map<string, Route | ((req: IncomingMessage) => Route)>();
  readonly hits: string[] = [];
  private readonly hanging = new Set<ServerResponse>();

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get hostPort(): string {
    return `127.0.0.1:${this.port}`;
  }

  set(path: string, route: Route | ((req: IncomingMessage) => Route)): void {
    this.routes.set(path, route);
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      this.hits.push(path);
      const r = this.routes.get(path);
      const route = typeof r === 'function' ? r(req) : r;
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
        return;
      }
      if (route.hang) {
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
        return;
      }
      const body = route.body ?? '';
      const headers: Record<string, string> = { 'content-type': route.type ?? 'text/html; charset=utf-8', ...route.headers };
      if (!route.chunked) headers['content-length'] = String(Buffer.byteLength(body));
      res.writeHead(route.status ?? 200, headers);
      if (route.chunked) {
        const buf = Buffer.from(body);
        for (let i = 0; i < buf.length; i += 16_384) res.write(buf.subarray(i, i + 16_384));
        res.end();
      } else res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Lets the process exit while this server still listens (suites without a teardown hook). */
  unref(): this {
    this.server?.unref();
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** An article page with navigation and footer chrome around the main content. */
export function articlePage(title: string, sections: [string, string][]): string {
  const body = sections.map(([h, p]) => `<h2>${h}</h2><p>${p}</p><p>${p}</p>`).join('\n');
  return `<!doctype html><html lang="en"><head><title>${title}</title><meta charset="utf-8"></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/shop">Shop the navigation menu</a></li></ul></nav>
<article><h1>${title}</h1>${body}</article>
<footer>Copyright footer boilerplate. Subscribe to our newsletter.</footer></body></html>`;
}

export const GARDEN: [string, string][] = [
  ['Soil', 'Tomatoes want loose, well-drained soil rich in compost, with a pH between 6.2 and 6.8. Work aged manure into the bed two weeks before planting seedlings outdoors.'],
  ['Watering', 'Water deeply at the base twice a week rather than a little every day. Irregular watering causes blossom end rot and split fruit on the vines.'],
  ['Pruning', 'Remove suckers that grow between the main stem and the branches of indeterminate varieties. Stake or cage the plants early so the fruit stays off the ground.'],
  ['Harvest', 'Pick the fruit when it is fully coloured and slightly soft. Green tomatoes left at the end of the season ripen indoors on a windowsill.'],
];

export function rss(items: { guid: string; title: string; body: string; link?: string }[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Local feed</title><link>http://example.test/</link><description>test</description>
${items.map((i) => `<item><title>${i.title}</title><link>${i.link ?? `http://example.test/${i.guid}`}</link><guid isPermaLink="false">${i.guid}</guid><pubDate>Tue, 03 Nov 2026 10:00:00 GMT</pubDate><content:encoded><![CDATA[${i.body}]]></content:encoded></item>`).join('\n')}
</channel></rss>`;
}

export function atom(items: { id: string; title: string; body: string }[]): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Atom feed</title><id>urn:test:feed</id><updated>2026-11-03T10:00:00Z</updated>
${items.map((i) => `<entry><id>${i.id}</id><title>${i.title}</title><updated>2026-11-03T10:00:00Z</updated><link href="http://example.test/${encodeURIComponent(i.id)}"/><content type="html">${i.body.replace(/</g, '&lt;').replace(/>/g, '&gt;')}</content></entry>`).join('\n')}
</feed>`;
}

export function urlset(entries: { loc: string; lastmod?: string }[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries.map((e) => `<url><loc>${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ''}</url>`).join('\n')}
</urlset>`;
}

export function sitemapIndex(locs: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('\n')}
</sitemapindex>`;
}
