// Spec: "MCP surface > Tool catalogue > Free tools (plan:free)". Fields only where the catalogue's
// "Behaviour stated" names them; the rest of each result is "not shown".
import { sampleDocument } from '../../helpers/server.js';
import { t, type ContractContext, type ContractFile } from '../contract.js';

/** The method of the newest usage event of a tool (Usage event: "value mcp_advisory marks advisory non-compressing MCP calls"). */
async function lastMethodOf(c: ContractContext, tool: string): Promise<string | undefined> {
  await c.server.app.services.background.drain();
  const page = await c.ok('GET', '/v1/usage/events?page_size=100');
  return (page.items as { tool_name: string | null; method: string }[]).find((e) => e.tool_name === tool)?.method;
}

const UPPER_FIDELITIES = ['ABSTRACT', 'OUTLINE', 'STRUCTURE', 'DETAILED', 'RAW'] as const;

export default {
  area: 'MCP tools: free (plan:free)',
  tools: [
    {
      tool: 'check_budget',
      spec: 'check_budget | advisory | per-session, daily or monthly token budget status, alert level, projected usage; unknown fields (such as a legacy period argument) are rejected with validation errors',
      args: { scope: 'monthly', budget_tokens: 1_000_000 },
      // "alert level" -> alert_level; "status" and "projected usage" are prose only.
      fields: { alert_level: t.string },
      check: async (_data, c) => {
        const legacy = await c.mcp('owner').callTool({ name: 'check_budget', arguments: { period: 'monthly' } });
        if (!legacy.isError) throw new Error('a legacy period argument should be rejected with a validation error');
      },
    },
    {
      tool: 'check_context_budget',
      spec: 'check_context_budget | advisory | usage percentage and recommendations at 40%, 60%, 75% thresholds',
      args: { used_tokens: 90_000, context_window: 128_000 },
      fields: { recommendations: t.array },
    },
    {
      tool: 'check_environment',
      spec: 'check_environment | advisory | models loaded, memory, cache hit ratio, stale documents, disk space, recommendations',
      // The catalogue's nouns as field names; "disk space" has no one-to-one name, and no types are stated.
      fields: {
        models_loaded: t.oneOf(t.object, t.array),
        memory: t.oneOf(t.object, t.number),
        cache_hit_ratio: t.nullable(t.number),
        stale_documents: t.oneOf(t.integer, t.array),
        recommendations: t.array,
      },
    },
    {
      tool: 'delete_document',
      spec: 'delete_document | general | permanently deletes an ingested document',
      args: async (c) => ({ file_id: (await c.tool('ingest_context', { text: sampleDocument(), name: 'contract-delete-doc' })).file_id }),
    },
    {
      tool: 'estimate_tokens',
      spec: 'estimate_tokens | analytics | accurate count, fast estimate (bytes/4), JSON estimate (bytes/2), raw byte count',
      args: { text: sampleDocument() },
      // "fast estimate" -> fast_estimate, "JSON estimate" -> json_estimate; the other two are prose only.
      fields: { fast_estimate: t.number, json_estimate: t.number },
      check: (data) => {
        const bytes = Buffer.byteLength(sampleDocument());
        if (Math.abs(data.fast_estimate - bytes / 4) > 1 || Math.abs(data.json_estimate - bytes / 2) > 1) throw new Error(`fast_estimate should be bytes/4 and json_estimate bytes/2 (${bytes} bytes)`);
      },
    },
    {
      tool: 'gc_pre_flight',
      spec: 'gc_pre_flight | platform | call first; verdict one of send_as_is, send_compressed, warn_context_limit, clear_first; plus mode one of scout, compress, read, write, idle',
      args: { text: sampleDocument(), context_window: 128_000, used_tokens: 2_000 },
      fields: { verdict: t.enum('send_as_is', 'send_compressed', 'warn_context_limit', 'clear_first'), mode: t.enum('scout', 'compress', 'read', 'write', 'idle') },
    },
    {
      tool: 'gc_session_summary',
      spec: 'gc_session_summary | platform | portable summary of session history with restoration_instructions; counts against monthly compression quota',
      args: { max_recent: 5 },
      fields: { restoration_instructions: t.any },
      check: async (_data, c) => {
        // "counts against monthly compression quota": a compression event, not an advisory one.
        const method = await lastMethodOf(c, 'gc_session_summary');
        if (method !== 'MCP') throw new Error(`gc_session_summary's usage event should have method MCP (counts as a compression), has ${method}`);
      },
    },
    {
      tool: 'gc_submit_benchmark',
      spec: 'gc_submit_benchmark | platform | submits an inference benchmark run (model, quantization, hardware, tokens/sec); published immediately with a public URL',
      args: { model: 'qwen2.5-7b', quantization: 'Q5_K_M', hardware: 'contract runner, 2 cores', tokens_per_second: 18.2 },
      fields: { public_url: t.string },
      check: async (data, c) => {
        const url = new URL(data.public_url);
        const page = await c.server.request('GET', url.pathname, { key: null });
        if (page.status !== 200) throw new Error(`public_url ${url.pathname} answered ${page.status}; the run should be published immediately`);
      },
    },
    {
      tool: 'get_compression_presets',
      spec: 'get_compression_presets | general | presets code-review, chat, research, aggressive, balanced',
      fields: { presets: t.oneOf(t.object, t.array) },
      check: (data) => {
        const text = JSON.stringify(data.presets);
        for (const p of ['code-review', 'chat', 'research', 'aggressive', 'balanced']) if (!text.includes(`"${p}"`)) throw new Error(`preset ${p} is missing`);
      },
    },
    {
      tool: 'get_compression_profile',
      spec: 'get_compression_profile | general | active session profile with skeleton_ratio, fidelity, chunk_size',
      fields: { skeleton_ratio: t.number, fidelity: t.string, chunk_size: t.integer },
    },
    { tool: 'get_stats', spec: 'get_stats | general | statistics of ingested documents' },
    {
      tool: 'ingest_context',
      spec: 'ingest_context | ingestion | ingests text (inline text) or file_url (HTTPS), optional file_path for sync tracking; returns skeleton',
      args: { text: sampleDocument(), name: 'contract-ingest-doc', file_path: 'docs/contract-ingest.md' },
      fields: { skeleton: t.string },
      check: async (_data, c) => {
        // Usage event: "value mcp_advisory marks advisory non-compressing MCP calls (for example gc_lookup, ingest_context, …)".
        const method = await lastMethodOf(c, 'ingest_context');
        if (method !== 'mcp_advisory') throw new Error(`ingest_context's usage event should have method mcp_advisory, has ${method}`);
      },
    },
    {
      tool: 'list_documents',
      spec: 'list_documents | general | inventory with file_id, metadata, node and token counts, ingestion time',
      args: { limit: 10 },
      note: 'The inventory container is not named by the spec.',
      fields: { 'documents[].file_id': t.string, 'documents[].metadata': t.object },
    },
    {
      tool: 'modulate_region',
      spec: 'modulate_region | general | retrieves nodes at a fidelity: ABSTRACT (about 10 tokens per node), OUTLINE (about 30), STRUCTURE (about 50), DETAILED (about 100), RAW (full original)',
      args: (c) => ({ file_id: c.fx.file_id, fidelity: 'OUTLINE', limit: 5 }),
      fields: { nodes: t.array },
    },
    {
      tool: 'read_skeleton',
      spec: 'read_skeleton | ingestion | skeleton of an ingested document; selection modes auto (default), baseline, query_guided, evidence_aware; response field selection_mode_resolved',
      args: (c) => ({ file_id: c.fx.file_id, query: 'rate limits and retries' }),
      fields: { skeleton: t.string, selection_mode_resolved: t.enum('baseline', 'query_guided', 'evidence_aware') },
    },
    {
      tool: 'recommend_fidelity',
      spec: 'recommend_fidelity | general | suggests ABSTRACT, OUTLINE, STRUCTURE, DETAILED or RAW',
      args: { text: sampleDocument(), context_window: 8_000 },
      check: (data) => {
        if (!Object.values(data).some((v) => (UPPER_FIDELITIES as readonly unknown[]).includes(v))) throw new Error('no suggested fidelity (ABSTRACT, OUTLINE, STRUCTURE, DETAILED or RAW) in the result');
      },
    },
    {
      tool: 'search_semantic',
      spec: 'search_semantic | search | vector search returning ranked node ids; optional evidence-aware insufficiency detection',
      args: { query: 'connection pool', top_k: 3, evidence_aware: true },
      key: 'project',
      // "ranked node ids" -> node_ids
      fields: { node_ids: t.array },
    },
    {
      tool: 'set_compression_profile',
      spec: 'set_compression_profile | general | profiles minimal, summary, balanced (default), detailed, full; explicit parameters in later calls override',
      args: { profile: 'summary' },
      fields: { profile: t.enum('minimal', 'summary', 'balanced', 'detailed', 'full') },
    },
    { tool: 'should_compress', spec: 'should_compress | general | -', args: { text: sampleDocument() } },
    {
      tool: 'tool_help',
      spec: 'tool_help | general | help for a tool or, without tool_name, all tools by category; verbose flag',
      args: {},
      // "all tools by category" -> categories
      fields: { categories: t.oneOf(t.object, t.array) },
    },
  ],
} satisfies ContractFile;
