// The usage dashboard in a real browser: headless Chromium from Debian (.ci/run installs it) driven by
// puppeteer-core. Signs in with a real key, checks the charts draw and the figures are the service's,
// creates, rotates and revokes keys through the page, and saves screenshots.
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  throw new Error(`Chromium is not installed at ${CHROMIUM}: the dashboard tests need it. Install it with 'apt-get install -y chromium' (.ci/run does this), or set CHROMIUM_PATH.`);
}
const SHOTS = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'gc-dashboard-screenshots');

let server: TestServer;
let browser: Browser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  const db = server.app.services.db;
  const userId = (await createUser(db, { plan: 'pro' })).id;
  key = (await createApiKey(db, { userId, plan: 'pro', name: 'dashboard-test' })).key;
  // Real traffic to chart: compressions at three levels, one with a model, one from a named client.
  const doc = sampleDocument();
  for (const [fidelity, extra] of [['balanced', {}], ['outline', { model: 'gpt-4o' }], ['abstract', {}], ['balanced', { model: 'gpt-4o' }]] as const) {
    const res = await server.request('POST', '/v1/compress', { key, body: { text: `${doc} ${fidelity}`, fidelity, ...extra }, headers: { 'user-agent': 'Cursor/1.2.3' } });
    expect(res.status).toBe(200);
  }
  // A REST call from curl with no model: the by-client row 'curl', the by-model row 'unspecified'.
  const curl = await server.request('POST', '/v1/compress', { key, body: { text: `${doc} curl`, fidelity: 'balanced' }, headers: { 'user-agent': 'curl/8.5.0' } });
  expect(curl.status).toBe(200);
  await server.app.services.background.drain();
  // A large call from earlier today, so the bar charts' y axes carry six-digit labels ("200,000").
  await db.query(
    `insert into usage_events (user_id, method, client, fidelity, model, status, input_tokens, output_tokens, savings_percent, created_at)
     values ($1, 'REST', 'curl/8.5.0', 'detailed', null, 'success', 260000, 40000, 84.6, now() - interval '1 minute')`,
    [userId],
  );
  mkdirSync(SHOTS, { recursive: true });
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function signedIn(): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 1400 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${server.url}/dashboard`, { waitUntil: 'load' });
  await page.type('#key', key);
  await page.click('#sign-in button[type=submit]');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
  expect(errors).toEqual([]);
  return page;
}

describe(`usage dashboard in Chromium (${DB_KIND})`, () => {
  it('serves the page and its assets with a strict content policy; unknown assets are 404', async () => {
    const page = await server.request('GET', '/dashboard', { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    for (const asset of ['app.js', 'app.css', 'uplot.js', 'uplot.css']) expect((await server.request('GET', `/dashboard/${asset}`, { key: null })).status).toBe(200);
    const missing = await server.request('GET', '/dashboard/../package.json', { key: null });
    expect(missing.status).toBe(404);
    for (const name of ['secrets.js', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect((await server.request('GET', `/dashboard/${name}`, { key: null })).status, name).toBe(404);
    }
  });

  it('a wrong key is refused in the page; the key never reaches the address or storage', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/dashboard`, { waitUntil: 'load' });
    await page.type('#key', 'gc_00000000000000000000000000000000');
    await page.click('#sign-in button[type=submit]');
    await page.waitForFunction(() => document.getElementById('sign-in-error')!.textContent !== '');
    expect(await page.$eval('#sign-in-error', (e) => e.textContent)).toContain('not accepted');
    await page.close();
    const ok = await signedIn();
    expect(ok.url()).not.toContain('gc_');
    const stored = await ok.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
    expect(stored).not.toContain('gc_');
    await ok.close();
  });

  it('draws the charts with the service figures: totals, history, by fidelity, model and client, recent calls', async () => {
    const page = await signedIn();
    const usage = (await server.request('GET', '/v1/usage', { key })).json;
    const figures = await page.$$eval('[data-figure]', (els) => Object.fromEntries(els.map((e) => [(e as HTMLElement).dataset.figure, Number((e as HTMLElement).dataset.value)])));
    expect(figures).toEqual({ compressions: usage.monthly_compressions, original_tokens: usage.original_tokens, tokens_saved: usage.tokens_saved });
    expect(usage.monthly_compressions).toBe(6);
    // uPlot draws into canvases; each chart has one with non-blank pixels.
    for (const id of ['chart-history', 'chart-fidelity', 'chart-model', 'chart-client']) {
      const drawn = await page.$eval(`#${id} canvas`, (c) => {
        const canvas = c as HTMLCanvasElement;
        const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
        return { painted, width: canvas.width };
      });
      expect(drawn.width, id).toBeGreaterThan(200);
      expect(drawn.painted, id).toBeGreaterThan(500);
    }
    expect(await page.$eval('#chart-history', (e) => Number((e as HTMLElement).dataset.points))).toBe(30);
    const byFidelity = (await server.request('GET', '/v1/usage/by-fidelity?days=30', { key })).json.data;
    const fidelityRows = await page.$$eval('#table-fidelity tbody tr', (rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent)));
    expect(fidelityRows.map((r) => r[0])).toEqual(byFidelity.map((d: { fidelity: string }) => d.fidelity));
    expect(fidelityRows.map((r) => r[0]).sort()).toEqual(['abstract', 'balanced', 'detailed', 'outline']);
    expect(await page.$$eval('#table-model tbody tr td:first-child', (tds) => tds.map((t) => t.textContent))).toContain('gpt-4o');
    expect(await page.$$eval('#table-client tbody tr td:first-child', (tds) => tds.map((t) => t.textContent))).toContain('cursor');
    expect(await page.$$eval('#table-events tbody tr', (rows) => rows.length)).toBe(6);
    expect(await page.$$eval('#table-client tbody tr td:first-child', (tds) => tds.map((t) => t.textContent))).toContain('curl');
    expect(await page.$$eval('#table-model tbody tr td:first-child', (tds) => tds.map((t) => t.textContent))).toContain('unspecified');
    // One rule for the three tables: compressions (successful, not advisory), so their calls total the same.
    const totals = await page.evaluate(() => ['fidelity', 'model', 'client'].map((t) => {
      const rows = Array.from(document.querySelectorAll(`#table-${t} tbody tr`));
      return rows.reduce((n, r) => n + Number((r.querySelectorAll('td')[1]!.textContent ?? '0').replace(/,/g, '')), 0);
    }));
    expect(totals).toEqual([6, 6, 6]);
    // The legend shows the latest day's values without hovering, never "--".
    const legend = await page.$$eval('#chart-history .u-legend .u-value', (els) => els.map((e) => e.textContent));
    expect(legend.length).toBeGreaterThan(0);
    expect(legend.some((v) => v === '--' || v === '')).toBe(false);
    await page.screenshot({ path: join(SHOTS, `dashboard-${DB_KIND}.png`), fullPage: true });
    await page.close();
  });

  it('fits 390, 768 and 1280 px: no horizontal overflow, no clipped axis label, charts follow a resize', async () => {
    const page = await signedIn();
    const fits = async (width: number) => {
      await page.setViewport({ width, height: 1400 });
      await page.waitForFunction((w) => document.body.dataset.resized === String(w), {}, width);
      const m = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        inner: window.innerWidth,
        charts: ['chart-history', 'chart-fidelity', 'chart-model', 'chart-client'].map((id) => {
          const el = document.getElementById(id)!;
          return { id, canvas: el.querySelector('canvas')!.getBoundingClientRect().width, box: el.clientWidth, label: Number(el.dataset.yLabelWidth), axis: Number(el.dataset.yAxisSize) };
        }),
      }));
      expect(m.scroll, `page width at ${width}px`).toBeLessThanOrEqual(m.inner);
      for (const c of m.charts) {
        expect(c.canvas, `${c.id} at ${width}px`).toBeLessThanOrEqual(c.box);
        expect(c.canvas, `${c.id} at ${width}px`).toBeGreaterThanOrEqual(Math.min(c.box, 200) - 1);
        expect(c.label, `${c.id} label`).toBeGreaterThan(0);
        expect(c.label, `${c.id} y labels fit their axis at ${width}px`).toBeLessThanOrEqual(c.axis);
      }
      await page.screenshot({ path: join(SHOTS, `dashboard-${width}px-${DB_KIND}.png`), fullPage: true });
      return m;
    };
    await fits(768);
    const wide = await fits(1280);
    // The six-digit label: the largest bar is 220,000 tokens saved, so the axis reaches 200,000.
    expect(wide.charts.find((c) => c.id === 'chart-fidelity')!.label).toBeGreaterThan(40);
    const narrow = await fits(390);
    const history = (m: typeof wide) => m.charts.find((c) => c.id === 'chart-history')!.canvas;
    expect(history(narrow)).toBeLessThan(390);
    expect(history(wide)).toBeGreaterThan(history(narrow) * 2);
    await page.close();
  });

  it('serves a favicon at /favicon.ico', async () => {
    const icon = await server.request('GET', '/favicon.ico', { key: null });
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.text).toContain('<svg');
  });

  it('creates, rotates and revokes keys from the page; a new key is shown once', async () => {
    const page = await signedIn();
    page.on('dialog', (d) => d.accept());
    await page.type('#new-key-name', 'from-dashboard');
    await page.click('#create-key button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#new-key code') !== null);
    const created = await page.$eval('#new-key code', (e) => e.textContent!);
    expect(created).toMatch(/^gc_[0-9a-f]{32}$/);
    expect((await server.request('GET', '/v1/usage', { key: created })).status).toBe(200);
    const keys = (await server.request('GET', '/v1/keys', { key })).json.keys as { key_id: string; name: string; status: string }[];
    const made = keys.find((k) => k.name === 'from-dashboard')!;
    await page.waitForSelector(`button[data-action=rotate][data-key="${made.key_id}"]`);
    await page.click(`button[data-action=rotate][data-key="${made.key_id}"]`);
    await page.waitForFunction((old) => { const c = document.querySelector('#new-key code'); return c !== null && c.textContent !== old; }, {}, created);
    const rotated = await page.$eval('#new-key code', (e) => e.textContent!);
    expect(rotated).not.toBe(created);
    expect((await server.request('GET', '/v1/usage', { key: rotated })).status).toBe(200);
    const successor = ((await server.request('GET', '/v1/keys', { key })).json.keys as { key_id: string; replaces_key_id: string | null }[]).find((k) => k.replaces_key_id === made.key_id)!;
    await page.waitForSelector(`button[data-action=revoke][data-key="${successor.key_id}"]`);
    await page.click(`button[data-action=revoke][data-key="${successor.key_id}"]`);
    await page.waitForFunction(() => document.getElementById('new-key')!.textContent === 'Done.');
    const after = ((await server.request('GET', '/v1/keys', { key })).json.keys as { key_id: string; status: string }[]).find((k) => k.key_id === successor.key_id)!;
    expect(after.status).toBe('revoked');
    await page.screenshot({ path: join(SHOTS, `dashboard-keys-${DB_KIND}.png`), fullPage: true });
    await page.close();
  });
});
