import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { notFound } from '../domain/errors.js';
import { defineRoute } from '../http/route.js';
import { packageRoot } from '../lib/root.js';

// The usage dashboard (beyond the spec; docs/dashboard.md): one page and its assets, public like any
// static file. Signing in happens in the page, with the API key held in memory and sent to /v1 routes.
const root = packageRoot();
const ASSETS: Record<string, { file: string; type: string }> = {
  'app.js': { file: join(root, 'src/dashboard/static/app.js'), type: 'text/javascript; charset=utf-8' },
  'app.css': { file: join(root, 'src/dashboard/static/app.css'), type: 'text/css; charset=utf-8' },
  'uplot.js': { file: join(root, 'node_modules/uplot/dist/uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' },
  'favicon.svg': { file: join(root, 'src/dashboard/static/favicon.svg'), type: 'image/svg+xml' },
  'uplot.css': { file: join(root, 'node_modules/uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
};
const PAGE = join(root, 'src/dashboard/static/index.html');

/** Read once, on first request; served from memory after. */
const cache = new Map<string, Buffer>();
const load = (file: string) => cache.get(file) ?? (cache.set(file, readFileSync(file)), cache.get(file)!);

// Scripts and styles from this origin only; the page talks to this origin only; no framing.
const HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

export const dashboardRoutes = [
  defineRoute({
    method: 'GET',
    path: '/dashboard',
    auth: 'public',
    doc: { summary: 'The usage dashboard page', contentType: 'text/html' },
    handler: () => ({ raw: load(PAGE), contentType: 'text/html; charset=utf-8', headers: HEADERS }),
  }),
  // Browsers ask every origin for /favicon.ico; an SVG answers it (every current browser draws one).
  defineRoute({
    method: 'GET',
    path: '/favicon.ico',
    auth: 'public',
    doc: { summary: 'The favicon (SVG)', contentType: 'image/svg+xml' },
    handler: () => ({ raw: load(ASSETS['favicon.svg']!.file), contentType: 'image/svg+xml', headers: { ...HEADERS, 'cache-control': 'public, max-age=86400' } }),
  }),
  defineRoute({
    method: 'GET',
    path: '/dashboard/:asset',
    auth: 'public',
    doc: { summary: 'A dashboard asset', description: 'A script, style sheet or image, with its own content type.', contentType: '*/*' },
    handler({ params }) {
      // Own keys only: 'constructor' or '__proto__' must not reach Object.prototype.
      const asset = Object.hasOwn(ASSETS, params.asset!) ? ASSETS[params.asset!] : undefined;
      if (!asset) throw notFound(`No dashboard asset '${params.asset}'`);
      return { raw: load(asset.file), contentType: asset.type, headers: HEADERS };
    },
  }),
];
