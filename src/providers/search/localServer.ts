// A local search provider speaking the Brave Search API's web-search format (GET /res/v1/web/search,
// key in X-Subscription-Token) over a corpus given to it: real HTTP on 127.0.0.1, term-overlap
// ranking, <strong>-marked snippets like Brave's. Tests and air-gapped set-ups point
// WEB_SEARCH_BASE_URL at it; gc_web_search's client talks to it exactly as to the real API.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalSearchDocument {
  title: string;
  url: string;
  text: string;
}

export interface LocalSearchOptions {
  host?: string;
  port?: number;
  /** When set, requests must carry this key in X-Subscription-Token, else 401 (like Brave). */
  requiredKey?: string | null;
  /** Keep the keys requests carried in keysSeen (tests only). */
  recordKeys?: boolean;
}

const terms = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.filter((t) => t.length > 1) ?? [];
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export class LocalSearchServer {
  private server: Server | null = null;
  private boundPort = 0;
  /** "GET /path status" of each request answered. */
  readonly calls: string[] = [];
  readonly keysSeen = new Set<string>();
  private failures: { status: number; remaining: number } | null = null;

  constructor(
    private readonly corpus: LocalSearchDocument[],
    private readonly options: LocalSearchOptions = {},
  ) {}

  /** The base URL (WEB_SEARCH_BASE_URL); host:port is what WEB_ALLOWED_HOSTS must name. */
  get url(): string {
    return `http://${this.options.host ?? '127.0.0.1'}:${this.boundPort}`;
  }

  get hostPort(): string {
    return `${this.options.host ?? '127.0.0.1'}:${this.boundPort}`;
  }

  failNext(status: number, count = 1): void {
    this.failures = { status, remaining: count };
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    this.boundPort = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Lets the process exit while this server still listens (suites without a teardown hook). */
  unref(): void {
    this.server?.unref();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The corpus ranked for q: documents sharing a term with it, most shared (then most frequent) first. */
  search(q: string, count: number) {
    const qt = [...new Set(terms(q))];
    return this.corpus
      .map((d, i) => {
        const dt = terms(`${d.title} ${d.text}`);
        const shared = qt.filter((t) => dt.includes(t)).length;
        const freq = dt.filter((t) => qt.includes(t)).length;
        return { d, i, shared, freq };
      })
      .filter((x) => x.shared > 0)
      .sort((a, b) => b.shared - a.shared || b.freq - a.freq || a.i - b.i)
      .slice(0, count)
      .map(({ d }) => {
        const sentences = d.text.split(/(?<=[.!?])\s+/).filter(Boolean);
        const hits = sentences.filter((s) => terms(s).some((t) => qt.includes(t)));
        const mark = (s: string) => escapeHtml(s).replace(/[\p{L}\p{N}]+/gu, (w) => (qt.includes(w.toLowerCase()) ? `<strong>${w}</strong>` : w));
        return {
          type: 'search_result',
          title: d.title,
          url: d.url,
          description: mark(hits[0] ?? sentences[0] ?? ''),
          extra_snippets: hits.slice(1, 4).map(mark),
          meta_url: { hostname: new URL(d.url).hostname },
        };
      });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://local');
    const reply = (status: number, body: unknown) => {
      this.calls.push(`${req.method} ${url.pathname} ${status}`);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' || url.pathname !== '/res/v1/web/search') return reply(404, { type: 'ErrorResponse', error: { code: 'NOT_FOUND', status: 404 } });
    const key = req.headers['x-subscription-token'];
    const token = typeof key === 'string' ? key : null;
    if (token && this.options.recordKeys) this.keysSeen.add(token);
    if (!token || (this.options.requiredKey && token !== this.options.requiredKey)) {
      return reply(401, { type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.', status: 401 } });
    }
    if (this.failures && this.failures.remaining > 0) {
      this.failures.remaining--;
      return reply(this.failures.status, { type: 'ErrorResponse', error: { code: 'INJECTED', status: this.failures.status } });
    }
    const q = url.searchParams.get('q') ?? '';
    if (!q.trim()) return reply(422, { type: 'ErrorResponse', error: { code: 'VALIDATION', detail: 'q is required', status: 422 } });
    const count = Math.min(20, Math.max(1, Number(url.searchParams.get('count')) || 20));
    reply(200, { type: 'search', query: { original: q }, web: { type: 'search', results: this.search(q, count) } });
  }
}
