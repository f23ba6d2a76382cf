// estimate_model_cost over the MCP SDK client: list prices from the dated table (src/providers/llm/prices.ts),
// exact token counts for OpenAI models, the compressed alternative, and clear errors.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/providers/llm/prices.js';
import { budgetFor } from '../../workers/shared/fidelity.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { call } from '../helpers/mcp.js';
import { connectAs } from '../helpers/users.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let pro: Client;
let free: Client;
beforeAll(async () => {
  server = await startTestServer();
  pro = await connectAs(server, 'pro');
  free = await connectAs(server, 'free');
});
afterAll(async () => {
  for (const c of [pro, free]) await c?.close();
  await server?.close();
});

const price = (model: string) => DEFAULT_PRICES.entries.find((e) => e.model === model)!;

describe(`estimate_model_cost (${DB_KIND})`, () => {
  it('prices a text per model from the table, exact tokens for OpenAI models, cheapest first', async () => {
    const text = sampleDocument();
    const d = (await call(pro, 'estimate_model_cost', { text, output_tokens: 500, models: ['gpt-4o', 'gpt-4o-mini-2024-07-18', 'claude-sonnet-4'], calls: 1000 })).data;
    expect(d.price_table_as_of).toBe(DEFAULT_PRICES.as_of);
    expect(d.models.map((m: any) => m.model)).toEqual(['gpt-4o-mini-2024-07-18', 'gpt-4o', 'claude-sonnet-4']);
    const gpt4o = d.models.find((m: any) => m.model === 'gpt-4o');
    const tokens = countTokens(text);
    expect(gpt4o).toMatchObject({ input_tokens: tokens, output_tokens: 500, token_count: 'exact', api: 'openai' });
    const expected = ((tokens * price('gpt-4o').input_usd_per_mtok + 500 * price('gpt-4o').output_usd_per_mtok) * 1000) / 1e6;
    expect(gpt4o.total_usd).toBeCloseTo(expected, 6);
    expect(d.models.find((m: any) => m.model === 'gpt-4o-mini-2024-07-18').priced_as).toBe('gpt-4o-mini');
    expect(d.models.find((m: any) => m.model === 'claude-sonnet-4').token_count).toBe('approximate');
    expect(d.cheapest).toBe('gpt-4o-mini-2024-07-18');
  });

  it('with a fidelity, adds the compressed cost and the savings', async () => {
    const d = (await call(pro, 'estimate_model_cost', { input_tokens: 10_000, output_tokens: 0, models: ['gpt-4.1'], fidelity: 'balanced' })).data;
    const m = d.models[0];
    expect(m.token_count).toBe('given');
    expect(m.compressed.input_tokens).toBe(budgetFor(10_000, 'balanced'));
    expect(m.compressed.total_usd).toBeCloseTo((budgetFor(10_000, 'balanced') * price('gpt-4.1').input_usd_per_mtok) / 1e6, 6);
    expect(m.compressed.savings_usd).toBeCloseTo(m.total_usd - m.compressed.total_usd, 6);
  });

  it('every priced model by default; unknown models listed as unpriced, all unknown is an error naming the priced ones', async () => {
    const all = (await call(pro, 'estimate_model_cost', { input_tokens: 1000 })).data;
    expect(all.models.length).toBeGreaterThanOrEqual(10);
    const some = (await call(pro, 'estimate_model_cost', { input_tokens: 1000, models: ['gpt-4o', 'no-such-model'] })).data;
    expect(some.unpriced).toEqual(['no-such-model']);
    const none = await call(pro, 'estimate_model_cost', { input_tokens: 1000, models: ['no-such-model'] });
    expect(none.isError).toBe(true);
    expect(none.data.detail).toMatch(/No price for no-such-model; priced models: .*gpt-4o/);
  });

  it('bad input is a validation error; a Free key gets plan_required', async () => {
    expect((await call(pro, 'estimate_model_cost', { text: 'x', input_tokens: 3 })).data.error).toBe('validation_error');
    expect((await call(pro, 'estimate_model_cost', { input_tokens: -1 })).data.error).toBe('validation_error');
    expect((await call(free, 'estimate_model_cost', { input_tokens: 10 })).data.error).toBe('plan_required');
  });
});
