// Spec: "Tool catalogue > Free tools": gc_lookup, gc_read_doc, gc_search_docs (platform), and
// "Pro tools > platform: other": gc_docs_coverage. Usage event: "value mcp_advisory marks advisory
// non-compressing MCP calls (for example gc_lookup, …)".
import { t, type ContractContext, type ContractFile } from '../contract.js';

async function lastMethodOf(c: ContractContext, tool: string): Promise<string | undefined> {
  await c.server.app.services.background.drain();
  const page = await c.ok('GET', '/v1/usage/events?page_size=100');
  return (page.items as { tool_name: string | null; method: string }[]).find((e) => e.tool_name === tool)?.method;
}

const QUESTION = 'How do I run code before the route handler for every request in Fastify?';

export default {
  area: 'MCP tools: documentation lookup',
  tools: [
    {
      tool: 'gc_lookup',
      spec: 'gc_lookup | platform | documentation chunks from nine indexed frameworks ranked by similarity; dedup of chunks within an MCP session, default true',
      args: { query: QUESTION },
      note: 'The result container and chunk field names are not named by the spec (results[] with content, url, score).',
      fields: { 'results[].content': t.string, 'results[].url': t.string, 'results[].score': t.number, dedup: t.const(true) },
      check: async (data, c) => {
        // "ranked by similarity": best first.
        const scores = (data.results as { score: number }[]).map((r) => r.score);
        if (scores.some((s, i) => i > 0 && s > scores[i - 1]!)) throw new Error('results are not ranked best first');
        // "dedup of chunks within an MCP session, default true": the same query in the same session returns none of them again.
        const again = await c.tool('gc_lookup', { query: QUESTION });
        const first = new Set((data.results as { chunk_id: string }[]).map((r) => r.chunk_id));
        if ((again.results as { chunk_id: string }[]).some((r) => first.has(r.chunk_id))) throw new Error('a chunk was returned twice in one session');
        const method = await lastMethodOf(c, 'gc_lookup');
        if (method !== 'mcp_advisory') throw new Error(`gc_lookup's usage event should have method mcp_advisory, has ${method}`);
      },
    },
    {
      tool: 'gc_search_docs',
      spec: 'gc_search_docs | platform | ranked docs results with title, snippet, url, score',
      args: { query: 'fastify preHandler hook' },
      fields: { 'results[].title': t.string, 'results[].snippet': t.string, 'results[].url': t.string, 'results[].score': t.number },
      check: (data) => {
        const scores = (data.results as { score: number }[]).map((r) => r.score);
        if (scores.some((s, i) => i > 0 && s > scores[i - 1]!)) throw new Error('results are not ranked best first');
      },
    },
    {
      tool: 'gc_read_doc',
      spec: 'gc_read_doc | platform | returns markdown, source_url, length_tokens for a docs page',
      args: { doc_id: 'fastify/docs/Reference/Hooks' },
      fields: { markdown: t.string, source_url: t.string, length_tokens: t.integer },
    },
    {
      tool: 'gc_docs_coverage',
      spec: 'platform: other | gc_docs_coverage',
      note: 'The spec names the tool only; the fields are this implementation\'s (frameworks with versions and counts).',
      args: {},
      fields: { 'frameworks[].id': t.string, 'frameworks[].version': t.string, 'frameworks[].chunks': t.integer },
      check: (data) => {
        if (data.frameworks.length !== 9) throw new Error(`nine indexed frameworks expected, got ${data.frameworks.length}`);
      },
    },
  ],
} satisfies ContractFile;
