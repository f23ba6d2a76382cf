// export_team_data through the official SDK client: the Prometheus text is read back with the real
// parser (parse-prometheus-text-format) and the CSV with an RFC 4180 reader, and both must give the
// JSON export's figures; the figures themselves match the calls the account made. Plan gate, bad
// input, and another account's usage never appears.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/auth/keys.js';
import { CSV_COLUMNS, type ExportRow } from '../../src/domain/analytics/teamExport.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';
import { connectAs, newKey } from '../helpers/users.js';

let server: TestServer;
let key: string;
let client: Client;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer();
  key = await newKey(server, 'pro');
  client = await connectMcp(server.url, key);
  clients.push(client);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await server?.close();
});

/** RFC 4180 reader: quoted fields with doubled quotes, commas and line breaks inside quotes, CRLF rows. */
function readCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(field), (field = '');
    else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field), rows.push(row), (row = []), (field = ''), i++;
    } else field += ch;
  }
  if (field !== '' || row.length) row.push(field), rows.push(row);
  return rows;
}

const NUMERIC = new Set(['calls', 'input_tokens', 'output_tokens', 'tokens_saved', 'cache_hits', 'latency_ms_sum']);
/** The export's own calls are left out of comparisons: each export adds one before the next is read. */
const notExport = (r: { tool?: string }) => r.tool !== 'export_team_data';

describe(`export_team_data (${DB_KIND})`, () => {
  it('JSON rows match the calls made; CSV and Prometheus read back give the same figures', async () => {
    const texts = [sampleDocument(), sampleDocument().slice(0, 2000), 'Caching, "quoted", and a comma.\nSecond line.'];
    let restInput = 0;
    for (const [i, text] of texts.entries()) {
      const r = await server.request('POST', '/v1/compress', { key, body: { text, fidelity: ['balanced', 'outline', 'detailed'][i] } });
      expect(r.status).toBe(200);
      restInput += r.json.original_tokens;
    }
    const batch = await server.request('POST', '/v1/batch-compress', { key, body: { documents: [{ text: sampleDocument() }, { text: 'Short one.', fidelity: 'loose' }] } });
    expect(batch.status).toBe(200);
    expect((await call(client, 'estimate_tokens', { text: 'count me' })).isError).toBe(false);

    const json = await call(client, 'export_team_data', { format: 'json', days: 7 });
    expect(json.isError, JSON.stringify(json.data)).toBe(false);
    const rows = (json.data.rows as ExportRow[]).filter(notExport);
    const today = new Date().toISOString().slice(0, 10);
    expect(json.data.to).toBe(today);
    const [keyRow] = await server.app.services.db.query<{ key_id: string }>('select key_id from api_keys where key_hash = $1', [hashApiKey(key)]);
    const keyId = keyRow!.key_id;
    expect(rows.every((r) => r.key_id === keyId && r.date === today)).toBe(true);
    const rest = rows.filter((r) => r.method === 'REST');
    expect(rest.reduce((s, r) => s + r.calls, 0)).toBe(3);
    expect(rest.reduce((s, r) => s + r.input_tokens, 0)).toBe(restInput);
    const batchRows = rows.filter((r) => r.method === 'batch');
    expect(Object.fromEntries(batchRows.map((r) => [r.status, r.calls]))).toEqual({ success: 1, client_error: 1 });
    expect(rows.find((r) => r.tool === 'estimate_tokens')).toMatchObject({ method: 'mcp_advisory', calls: 1, status: 'success' });
    for (const r of rows) {
      // Saved is summed per call and never below zero per call: at least the row's net difference, at most its input.
      expect(r.tokens_saved).toBeGreaterThanOrEqual(Math.max(0, r.input_tokens - r.output_tokens));
      expect(r.tokens_saved).toBeLessThanOrEqual(r.input_tokens);
    }

    // CSV: parsed back, the same rows.
    const csv = await call(client, 'export_team_data', { format: 'csv', days: 7 });
    expect(csv.isError).toBe(false);
    expect(csv.data.content_type).toMatch(/^text\/csv/);
    const [header, ...body] = readCsv(csv.data.content);
    expect(header).toEqual([...CSV_COLUMNS]);
    const fromCsv = body.map((cells) => Object.fromEntries(header!.map((h, i) => [h, NUMERIC.has(h) ? Number(cells[i]) : cells[i]])));
    expect(fromCsv.filter(notExport)).toEqual(rows);
    expect(csv.data.rows_count).toBe(body.length);

    // Prometheus: the real parser reads it; each series equals the JSON rows summed over the days.
    const prom = await call(client, 'export_team_data', { format: 'prometheus', days: 7 });
    expect(prom.isError).toBe(false);
    expect(prom.data.content_type).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusTextFormat(prom.data.content);
    const byName = new Map(families.map((f) => [f.name, f]));
    expect(Number(byName.get('gc_team_export_window_days')!.metrics[0]!.value)).toBe(7);
    for (const figure of NUMERIC) {
      const family = byName.get(`gc_team_${figure}`)!;
      expect(family.type).toBe('GAUGE');
      const expected = new Map<string, number>();
      for (const r of rows) {
        const labels = JSON.stringify([r.key_id, r.project_id, r.method, r.tool, r.status]);
        expected.set(labels, (expected.get(labels) ?? 0) + (r as unknown as Record<string, number>)[figure]!);
      }
      const got = new Map(
        family.metrics.filter((m) => m.labels!.tool !== 'export_team_data').map((m) => [JSON.stringify([m.labels!.key_id, m.labels!.project_id, m.labels!.method, m.labels!.tool, m.labels!.status]), Number(m.value)]),
      );
      expect(got, figure).toEqual(expected);
    }
  });

  it("another account's export holds none of this account's usage", async () => {
    const other = await connectAs(server, 'pro');
    clients.push(other);
    const first = await call(other, 'export_team_data', {});
    expect(first.isError).toBe(false);
    expect(first.data.rows).toEqual([]);
    expect(first.data.totals.calls).toBe(0);
    const second = await call(other, 'export_team_data', { format: 'prometheus' });
    const families = parsePrometheusTextFormat(second.data.content);
    const calls = families.find((f) => f.name === 'gc_team_calls')!;
    // Only its own first export call.
    expect(calls.metrics.map((m) => [m.labels!.tool, m.value])).toEqual([['export_team_data', '1']]);
  });

  it('refuses the Free plan, an unknown format and an out-of-range window', async () => {
    const free = await connectAs(server, 'free');
    clients.push(free);
    const gated = await call(free, 'export_team_data', { format: 'csv' });
    expect(gated.isError).toBe(true);
    expect(gated.data.error).toBe('plan_required');
    expect(gated.data.detail).toMatch(/Pro plan or higher/);
    for (const args of [{ format: 'xml' }, { days: 0 }, { days: 366 }, { format: 'json', extra: true }]) {
      const r = await call(client, 'export_team_data', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.data.detail).toBeTruthy();
    }
  });
});
