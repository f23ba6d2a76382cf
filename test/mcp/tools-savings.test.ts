// get_savings_report, get_savings_inline, discover_savings and calculate_roi over the MCP SDK client,
// on real traffic; figures checked against the REST usage routes and the price table.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/providers/llm/prices.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { connectAs, newKey } from '../helpers/users.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let key: string;
let pro: Client;
let fresh: Client;
let free: Client;
const price = (model: string) => DEFAULT_PRICES.entries.find((e) => e.model === model)!.input_usd_per_mtok;

beforeAll(async () => {
  server = await startTestServer();
  key = await newKey(server, 'pro');
  pro = await connectMcp(server.url, key);
  fresh = await connectAs(server, 'pro');
  free = await connectAs(server, 'free');
  const doc = sampleDocument();
  for (let i = 0; i < 3; i++) {
    expect((await server.request('POST', '/v1/compress', { key, body: { text: `${doc} Detailed ${i}.`, fidelity: 'detailed', model: 'gpt-4o' } })).status).toBe(200);
  }
  expect((await server.request('POST', '/v1/compress', { key, body: { text: `${doc} Balanced.`, fidelity: 'balanced', model: 'gpt-4o' } })).status).toBe(200);
  // A tool whose calls save nothing: output already shorter than any compression of it.
  for (let i = 0; i < 3; i++) expect((await call(pro, 'compress_tool_output', { output: `ok ${i}` })).isError).toBe(false);
  await server.app.services.background.drain();
});
afterAll(async () => {
  for (const c of [pro, fresh, free]) await c?.close();
  await server?.close();
});

describe(`savings tools (${DB_KIND})`, () => {
  it('get_savings_report: totals equal the usage history, dollars at the most used priced model', async () => {
    const r = (await call(pro, 'get_savings_report', { days: 7 })).data;
    const history = (await server.request('GET', '/v1/usage/history?days=7', { key })).json.data as { compressions: number; tokens_saved: number; original_tokens: number }[];
    expect(r.totals.calls).toBe(history.reduce((s, d) => s + d.compressions, 0));
    expect(r.totals.tokens_saved).toBe(history.reduce((s, d) => s + d.tokens_saved, 0));
    expect(r.totals.original_tokens).toBe(history.reduce((s, d) => s + d.original_tokens, 0));
    expect(r.priced_at.model).toBe('gpt-4o');
    // Dollars are rounded to the micro-dollar (savings.ts usd): a half micro-dollar rounds up, so 5 places.
    expect(r.usd_saved).toBeCloseTo((r.totals.tokens_saved * price('gpt-4o')) / 1e6, 5);
    expect(r.by_fidelity.map((f: { fidelity: string }) => f.fidelity).sort()).toEqual(['balanced', 'detailed', 'none']);
    expect(r.daily).toHaveLength(7);
    const atOpus = (await call(pro, 'get_savings_report', { days: 7, model: 'claude-opus-4' })).data;
    expect(atOpus.usd_saved).toBeCloseTo((r.totals.tokens_saved * price('claude-opus-4')) / 1e6, 5);
  });

  it('get_savings_inline: one sentence with the same figures; an account with no traffic says so', async () => {
    const r = (await call(pro, 'get_savings_inline', { days: 7 })).data;
    const report = (await call(pro, 'get_savings_report', { days: 7 })).data;
    expect(r.tokens_saved).toBe(report.totals.tokens_saved);
    expect(r.text).toContain(`Saved ${report.totals.tokens_saved.toLocaleString('en-US')} tokens (${report.totals.savings_percent}%)`);
    expect(r.text).toContain('at gpt-4o input prices');
    expect((await call(fresh, 'get_savings_inline', {})).data.text).toBe('No compressions in the last 7 days.');
  });

  it('discover_savings: detailed calls that balanced would serve, and the tool whose calls saved nothing', async () => {
    const r = (await call(pro, 'discover_savings', { days: 7 })).data;
    const kinds = r.opportunities.map((o: { kind: string }) => o.kind);
    expect(kinds[0]).toBe('higher_fidelity_than_needed');
    expect(r.opportunities[0].calls).toBe(3);
    expect(r.opportunities[0].est_monthly_tokens_saved).toBeGreaterThan(0);
    const nothing = r.opportunities.find((o: { kind: string }) => o.kind === 'calls_that_saved_nothing');
    expect(nothing.detail).toContain('compress_tool_output');
    expect((await call(fresh, 'discover_savings', {})).data.opportunities).toEqual([]);
  });

  it('calculate_roi: exact arithmetic on given figures; defaults from the last 30 days', async () => {
    const r = (await call(pro, 'calculate_roi', { monthly_input_tokens: 100_000_000, model: 'gpt-4o', savings_percent: 80, monthly_service_cost_usd: 49 })).data;
    expect(r.monthly_cost_without_usd).toBeCloseTo(250, 6);
    expect(r.monthly_cost_with_usd).toBeCloseTo(50, 6);
    expect(r.monthly_gross_saving_usd).toBeCloseTo(200, 6);
    expect(r.monthly_net_saving_usd).toBeCloseTo(151, 6);
    expect(r.roi_percent).toBeCloseTo(308.2, 1);
    const d = (await call(pro, 'calculate_roi', {})).data;
    const report = (await call(pro, 'get_savings_report', { days: 30 })).data;
    expect(d.monthly_input_tokens).toBe(report.totals.original_tokens);
    expect(d.savings_percent).toBe(report.totals.savings_percent);
    expect(d.source).toEqual({ monthly_input_tokens: 'last 30 days of usage', savings_percent: 'measured over the last 30 days' });
    expect(d.roi_percent).toBeNull();
  });

  it('get_compression_insights: by fidelity, model, surface and client as the REST routes count them, with findings', async () => {
    const r = (await call(pro, 'get_compression_insights', { days: 7 })).data;
    const byModel = (await server.request('GET', '/v1/usage/by-model?days=7', { key })).json.data;
    expect(r.by_model.map((m: { model: string }) => m.model)).toEqual(byModel.map((m: { model: string }) => m.model));
    const surfaces = Object.fromEntries(r.by_surface.map((x: { method: string; calls: number }) => [x.method, x.calls]));
    expect(surfaces).toMatchObject({ REST: 4, MCP: 3 });
    expect(r.by_fidelity.find((f: { fidelity: string }) => f.fidelity === 'detailed').compressions).toBe(3);
    expect(r.findings.join(' ')).toMatch(/Most tokens were saved at (detailed|balanced)/);
    expect(typeof r.by_model[0].tokens_saved).toBe('number');
    expect((await call(fresh, 'get_compression_insights', {})).data.findings).toEqual(['No compressions in the last 30 days.']);
  });

  it('errors: an unpriced model names the priced ones; bad ranges are validation errors; Free gets plan_required', async () => {
    const bad = await call(pro, 'get_savings_report', { model: 'no-such-model' });
    expect(bad.isError).toBe(true);
    expect(bad.data.detail).toMatch(/No price for model 'no-such-model'; priced models: .*gpt-4o/);
    expect((await call(pro, 'get_savings_report', { days: 0 })).data.error).toBe('validation_error');
    expect((await call(pro, 'calculate_roi', { savings_percent: 120 })).data.error).toBe('validation_error');
    for (const tool of ['get_savings_report', 'get_savings_inline', 'discover_savings', 'calculate_roi', 'get_compression_insights']) {
      expect((await call(free, tool, {})).data.error, tool).toBe('plan_required');
    }
  });
});
