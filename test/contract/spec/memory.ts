// Spec: "Tool catalogue > Pro tools": memory (add_memory, delete_memory, recover_session, search_memory,
// search_memory_index, summarize_user_memory), adaptive-memory (afm_*: messages classed CRITICAL,
// RELEVANT or TRIVIAL; context items packed as FULL, COMPRESSED or PLACEHOLDER) and the general tools
// get_context_block, get_user_profile, invalidate_fact, list_fact_history, list_memories, and the
// handoff bundle tools (create_handoff_bundle, get_handoff_bundle, list_handoff_bundles, replay_handoff_bundle)
// and compiled knowledge (compile_knowledge, get_knowledge_index, lint_knowledge).
// The spec names no response fields for these; entries check the nouns it uses (importance classes,
// item forms) and the names issue 19 gives (compact index entries: id, title, tokens; facts:
// valid-from, valid-to, superseded-by), each noted where derived.
import { t, toolErrorOf, type ContractFile } from '../contract.js';

const NO_FIELDS = 'The spec lists the tool without response fields; the checked names are the ones the issue and docs/memory.md use.';
const IMPORTANCE = t.enum('CRITICAL', 'RELEVANT', 'TRIVIAL');

export default {
  area: 'MCP tools: memory, adaptive-memory, facts and context',
  setup: async (c) => {
    const m = await c.tool('add_memory', { content: 'The contract suite runs on two cores against PGlite and PostgreSQL.', tags: ['contract'] }, 'project');
    c.fx.memory_id = m.memory_id;
    c.fx.memory_session_id = m.session_id;
    const f = await c.tool('add_memory', { content: 'Prefers terse answers', kind: 'preference', key: 'answer_style', value: 'terse' }, 'project');
    c.fx.fact_key = 'answer_style';
    c.fx.fact_id = f.fact_id;
    await c.tool('afm_add_message', { conversation_id: 'contract-afm', role: 'user', content: 'We must keep the public API stable.' }, 'project');
    await c.tool('afm_add_message', { conversation_id: 'contract-afm', role: 'assistant', content: 'Understood, I will not rename any endpoint in this change.' }, 'project');
    c.fx.bundle_id = (await c.tool('create_handoff_bundle', { title: 'contract', notes: 'carry on', conversation_id: 'contract-afm' }, 'project')).bundle_id;
  },
  tools: [
    {
      tool: 'add_memory',
      spec: 'memory | add_memory',
      args: { content: 'A memory added by the contract entry.' },
      key: 'project',
      note: NO_FIELDS,
      fields: { memory_id: t.uuid, title: t.string, kind: t.string, tokens: t.integer, created_at: t.timestamp },
    },
    {
      tool: 'list_memories',
      spec: 'general | list_memories',
      args: {},
      key: 'project',
      note: `${NO_FIELDS} The list container is not named by the spec.`,
      fields: { 'memories[].memory_id': t.uuid, 'memories[].content': t.string, total: t.integer },
    },
    {
      tool: 'delete_memory',
      spec: 'memory | delete_memory',
      args: async (c) => ({ memory_id: (await c.tool('add_memory', { content: 'to be deleted' }, 'project')).memory_id }),
      key: 'project',
      note: NO_FIELDS,
      fields: { memory_id: t.uuid, deleted: t.boolean },
    },
    {
      tool: 'search_memory',
      spec: 'memory | search_memory (issue 19: hybrid BM25 + embeddings with the Knowledge Hub fusion)',
      args: { query: 'how many cores does the contract suite run on' },
      key: 'project',
      note: NO_FIELDS,
      fields: { 'results[].memory_id': t.uuid, 'results[].content': t.string, 'results[].score': t.number },
    },
    {
      tool: 'search_memory_index',
      spec: 'memory | search_memory_index (issue 19: compact entries id, title, tokens)',
      args: { query: 'contract suite cores' },
      key: 'project',
      // "id" -> memory_id, as every other memory tool names it
      fields: { 'entries[].memory_id': t.uuid, 'entries[].title': t.string, 'entries[].tokens': t.integer },
    },
    {
      tool: 'summarize_user_memory',
      spec: 'memory | summarize_user_memory',
      args: {},
      key: 'project',
      note: NO_FIELDS,
      fields: { summary: t.string, tokens: t.integer, memory_count: t.integer },
    },
    {
      tool: 'get_user_profile',
      spec: 'general | get_user_profile (issue 19: preferences and facts derived from memories)',
      args: {},
      key: 'project',
      fields: { 'preferences[].key': t.string, 'preferences[].value': t.string, facts: t.array },
    },
    {
      tool: 'invalidate_fact',
      spec: 'general | invalidate_fact (issue 19: bi-temporal facts: valid-from, valid-to, superseded-by; invalidating never deletes)',
      args: async (c) => ({ fact_id: (await c.tool('add_memory', { content: 'Uses tabs', kind: 'preference', key: 'indent', value: 'tabs' }, 'project')).fact_id, reason: 'contract' }),
      key: 'project',
      // "valid-from, valid-to, superseded-by" -> valid_from, valid_to, superseded_by
      fields: { fact_id: t.uuid, valid_from: t.timestamp, valid_to: t.timestamp, superseded_by: t.nullable(t.uuid), invalidated_at: t.timestamp },
    },
    {
      tool: 'list_fact_history',
      spec: 'general | list_fact_history (issue 19: valid-from, valid-to, superseded-by)',
      args: (c) => ({ key: c.fx.fact_key }),
      key: 'project',
      fields: { 'facts[].fact_id': t.uuid, 'facts[].valid_from': t.timestamp, 'facts[].valid_to': t.nullable(t.timestamp), 'facts[].superseded_by': t.nullable(t.uuid) },
    },
    {
      tool: 'get_context_block',
      spec: 'general | get_context_block (issue 19: token-budgeted block of memories and Knowledge Hub chunks)',
      args: { query: 'contract suite', budget_tokens: 300 },
      key: 'project',
      note: NO_FIELDS,
      fields: { block: t.string, tokens: t.integer, budget_tokens: t.integer, 'items[].source': t.enum('fact', 'memory', 'knowledge') },
      check: (data) => {
        if ((data as { tokens: number }).tokens > 300) throw new Error('the block is over its budget');
      },
    },
    {
      tool: 'recover_session',
      spec: "memory | recover_session (issue 19: restores a session's context from stored history)",
      args: (c) => ({ session_id: c.fx.memory_session_id }),
      key: 'project',
      note: NO_FIELDS,
      fields: { session_id: t.string, context: t.string, 'memories[].memory_id': t.uuid },
    },
    {
      tool: 'afm_add_message',
      spec: 'adaptive-memory | afm_add_message (messages classed CRITICAL, RELEVANT or TRIVIAL)',
      args: { conversation_id: 'contract-afm-add', role: 'user', content: 'ok thanks' },
      key: 'project',
      // "classed CRITICAL, RELEVANT or TRIVIAL" -> importance; issue 19: "with reason"
      fields: { importance: IMPORTANCE, reason: t.string, seq: t.integer },
    },
    {
      tool: 'afm_build_context',
      spec: 'adaptive-memory | afm_build_context (context items packed as FULL, COMPRESSED or PLACEHOLDER)',
      args: { conversation_id: 'contract-afm', budget_tokens: 200 },
      key: 'project',
      // "context items packed as FULL, COMPRESSED or PLACEHOLDER" -> items[].form
      fields: { context: t.string, tokens: t.integer, 'items[].form': t.enum('FULL', 'COMPRESSED', 'PLACEHOLDER'), 'items[].importance': IMPORTANCE },
    },
    { tool: 'afm_get_stats', spec: 'adaptive-memory | afm_get_stats', args: { conversation_id: 'contract-afm' }, key: 'project', note: NO_FIELDS, fields: { message_count: t.integer, total_tokens: t.integer } },
    {
      tool: 'afm_export_history',
      spec: 'adaptive-memory | afm_export_history',
      args: { conversation_id: 'contract-afm' },
      key: 'project',
      note: NO_FIELDS,
      fields: { format: t.string, content_hash: t.string, 'messages[].importance': IMPORTANCE, 'messages[].content': t.string },
    },
    {
      tool: 'afm_import_history',
      spec: 'adaptive-memory | afm_import_history',
      args: async (c) => ({ conversation_id: `contract-import-${Date.now()}`, history: await c.tool('afm_export_history', { conversation_id: 'contract-afm' }, 'project') }),
      key: 'project',
      note: NO_FIELDS,
      fields: { imported: t.integer },
    },
    {
      tool: 'afm_clear_history',
      spec: 'adaptive-memory | afm_clear_history',
      args: async (c) => {
        await c.tool('afm_add_message', { conversation_id: 'contract-afm-clear', role: 'user', content: 'to be cleared soon' }, 'project');
        return { conversation_id: 'contract-afm-clear' };
      },
      key: 'project',
      note: NO_FIELDS,
      fields: { deleted: t.integer },
    },
    {
      tool: 'create_handoff_bundle',
      spec: 'general | create_handoff_bundle (issue 19: session state, key memories, compressed history, content-hashed)',
      args: { notes: 'contract entry', conversation_id: 'contract-afm' },
      key: 'project',
      // "content-hashed" -> content_hash (SHA-256 hex)
      fields: { bundle_id: t.uuid, content_hash: t.pattern(/^[0-9a-f]{64}$/), 'bundle.session_state': t.object, 'bundle.memories': t.array, 'bundle.history': t.nullable(t.object) },
    },
    {
      tool: 'get_handoff_bundle',
      spec: 'general | get_handoff_bundle',
      args: (c) => ({ bundle_id: c.fx.bundle_id }),
      key: 'project',
      note: NO_FIELDS,
      fields: { bundle_id: t.uuid, content_hash: t.pattern(/^[0-9a-f]{64}$/), bundle: t.object, verified: t.boolean },
    },
    {
      tool: 'list_handoff_bundles',
      spec: 'general | list_handoff_bundles',
      args: {},
      key: 'project',
      note: `${NO_FIELDS} The list container is not named by the spec.`,
      fields: { 'bundles[].bundle_id': t.uuid, 'bundles[].content_hash': t.string },
    },
    {
      tool: 'replay_handoff_bundle',
      spec: 'general | replay_handoff_bundle (issue 19: restores into a new MCP session so a second agent continues)',
      args: (c) => ({ bundle_id: c.fx.bundle_id }),
      key: 'project',
      note: NO_FIELDS,
      fields: { bundle_id: t.uuid, content_hash: t.string, context: t.string, restored: t.object },
    },
    {
      tool: 'compile_knowledge',
      spec: 'general | compile_knowledge',
      args: {},
      key: 'project',
      note: NO_FIELDS,
      fields: { index_item_id: t.uuid, compiled_at: t.timestamp, item_count: t.integer, markdown: t.string, 'items[].item_id': t.uuid },
    },
    {
      tool: 'get_knowledge_index',
      spec: 'general | get_knowledge_index',
      args: async (c) => {
        await c.tool('compile_knowledge', {}, 'project');
        return {};
      },
      key: 'project',
      note: NO_FIELDS,
      fields: { index_item_id: t.uuid, markdown: t.string, stale: t.boolean },
      check: async (_data, c) => {
        const unbound = await c.mcp('owner').callTool({ name: 'get_knowledge_index', arguments: {} });
        if (toolErrorOf(unbound) !== 'no_project_selected') throw new Error('an unbound key should get error no_project_selected');
      },
    },
    {
      tool: 'lint_knowledge',
      spec: 'general | lint_knowledge',
      args: {},
      key: 'project',
      note: NO_FIELDS,
      fields: { findings: t.array, items_checked: t.integer },
    },
  ],
} satisfies ContractFile;
