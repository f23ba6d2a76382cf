// prune_by_relevance over the MCP SDK client: the query's answer kept within a firm budget, verbatim
// and in order, on a real document; bad input and the plan gate.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../workers/shared/tokens.js';
import { nonVerbatimFragments, realDoc } from '../text/helpers.js';
import { call } from '../helpers/mcp.js';
import { connectAs } from '../helpers/users.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

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

describe(`prune_by_relevance (${DB_KIND})`, () => {
  it('keeps the passage that answers the query within a firm budget, verbatim and in order', async () => {
    const text = realDoc('node_modules/piscina/README.md');
    for (const budget of [300, 800]) {
      const r = (await call(pro, 'prune_by_relevance', { text, query: 'How do I limit the size of the task queue? maxQueue', budget_tokens: budget })).data;
      expect(r.pruned_tokens, String(budget)).toBeLessThanOrEqual(budget);
      expect(r.pruned_tokens).toBe(countTokens(r.pruned_text));
      expect(r.pruned_text).toContain('maxQueue');
      expect(r.original_tokens).toBe(countTokens(text));
      expect(r.units_kept).toBeLessThan(r.units_total);
      // Every kept sentence is the input's own.
      expect(nonVerbatimFragments(text, r.pruned_text)).toEqual([]);
    }
    // Without a budget: balanced's share.
    const d = (await call(pro, 'prune_by_relevance', { text, query: 'maxQueue' })).data;
    expect(d.pruned_tokens).toBeLessThanOrEqual(Math.floor(d.original_tokens * 0.2));
    expect(d.budget_tokens).toBeNull();
  });

  it('a budget above the input returns it whole; bad input is a validation error; Free gets plan_required', async () => {
    const short = 'Workers run tasks. The queue holds waiting tasks. maxQueue bounds the queue.';
    const whole = (await call(pro, 'prune_by_relevance', { text: short, query: 'queue', budget_tokens: 1000 })).data;
    expect(whole.pruned_text).toBe(short);
    expect((await call(pro, 'prune_by_relevance', { text: short, query: ' ' })).data.error).toBe('validation_error');
    expect((await call(pro, 'prune_by_relevance', { text: short, query: 'q', budget_tokens: 3 })).data.error).toBe('validation_error');
    expect((await call(free, 'prune_by_relevance', { text: short, query: 'queue' })).data.error).toBe('plan_required');
  });
});
