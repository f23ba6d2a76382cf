// Spec: "Tool catalogue > Pro tools > knowledge-base", with the Knowledge Hub item and query-chunk
// fields ("Resources and their fields > Knowledge Hub", "Shares"). "Knowledge, plan, task and
// workflow tools require a project-bound API key": these calls use the owner's project-bound key.
import { sampleDocument } from '../../helpers/server.js';
import { t, type ContractContext, type ContractFile, type Fields } from '../contract.js';
import { ensurePeers } from './federation.js';
import { KB_CHUNK, KB_ITEM } from './knowledge.js';
import { call } from '../../helpers/mcp.js';

const prefixed = (prefix: string, fields: Fields): Fields => Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${prefix}${k}`, v]));

async function freshItem(c: ContractContext, name: string): Promise<string> {
  return (await c.tool('gc_kb_ingest', { name, content: `# ${name}\n\nRetries use exponential back-off with jitter.` }, 'project')).item_id;
}

export default {
  area: 'MCP tools: knowledge-base',
  tools: [
    {
      tool: 'gc_kb_ingest',
      spec: 'gc_kb_ingest (content or url; name alone creates an empty placeholder; embedding runs asynchronously)',
      args: { name: 'contract-mcp-ingest', content: sampleDocument() },
      key: 'project',
      fields: { item_id: t.uuid },
      check: async (_data, c) => {
        const placeholder = await c.tool('gc_kb_ingest', { name: 'contract-placeholder' }, 'project');
        if (!placeholder.item_id) throw new Error('a name alone should create an (empty placeholder) item');
      },
    },
    { tool: 'gc_kb_get', spec: 'gc_kb_get; Knowledge Hub item fields', args: (c) => ({ item_id: c.fx.item_id }), key: 'project', fields: KB_ITEM },
    {
      tool: 'gc_kb_list',
      spec: 'gc_kb_list; Knowledge Hub item fields. Knowledge, plan, task and workflow tools require a project-bound API key; an unbound key gets a result with error no_project_selected',
      args: { limit: 20 },
      key: 'project',
      note: 'The list container is not named by the spec.',
      fields: prefixed('items[].', KB_ITEM),
      check: async (_data, c) => {
        const unbound = await call(c.mcp('owner'), 'gc_kb_list', { limit: 20 });
        if (unbound.data.error !== 'no_project_selected') throw new Error(`an unbound key should get error no_project_selected: ${JSON.stringify(unbound.data)}`);
      },
    },
    {
      tool: 'gc_kb_edit',
      spec: 'gc_kb_edit; EditRequest (name, content, base_version_id, mcp_exposed); only name or only mcp_exposed keeps current_version_id',
      args: async (c) => ({ item_id: await freshItem(c, 'contract-mcp-edit'), mcp_exposed: true }),
      key: 'project',
      fields: KB_ITEM,
    },
    { tool: 'gc_kb_delete', spec: 'gc_kb_delete; DELETE item or gc_kb_delete -> soft-deleted', args: async (c) => ({ item_id: await freshItem(c, 'contract-mcp-delete') }), key: 'project' },
    {
      tool: 'gc_kb_query',
      spec: 'gc_kb_query; query result chunk: raw_text (actual content), text (compressed skeleton view with [HIDDEN] and anchor markers), item_id, score (similarity)',
      args: { query: 'How do I change the listening port?' },
      key: 'project',
      note: 'The result container is not named by the spec.',
      fields: prefixed('results[].', KB_CHUNK),
    },
    {
      tool: 'gc_kb_diff',
      spec: "gc_kb_diff; DiffResponse with both versions' full content and a unified diff string",
      args: (c) => ({ item_id: c.fx.item_id, from_version_id: c.fx.version_id, to_version_id: c.fx.version_id_2 }),
      key: 'project',
      // "a unified diff string" -> unified_diff
      fields: { unified_diff: t.string },
    },
    {
      tool: 'gc_kb_set_visibility',
      spec: 'gc_kb_set_visibility; visibility levels private, project (default), org and external (return error not_implemented)',
      args: async (c) => ({ item_id: await freshItem(c, 'contract-mcp-visibility'), visibility: 'private' }),
      key: 'project',
      fields: { visibility: t.const('private') },
      check: async (data, c) => {
        const org = await call(c.mcp('project'), 'gc_kb_set_visibility', { item_id: data.item_id, visibility: 'org' });
        if (!org.isError || org.data.error !== 'not_implemented') throw new Error('visibility org should return error not_implemented');
      },
    },
    {
      tool: 'gc_kb_share',
      spec: 'gc_kb_share (owner project only; refuses private items with cannot_share_private; idempotent); outbound share: UUID share_id, granted to a peer (UUID peer_id) for a KB item',
      args: async (c) => ({ item_id: await freshItem(c, 'contract-mcp-share'), peer_id: (await ensurePeers(c)).peerId }),
      key: 'project',
      fields: { share_id: t.uuid },
      check: async (data, c) => {
        const again = await c.tool('gc_kb_share', { item_id: data.item_id, peer_id: data.peer_id }, 'project');
        if (again.share_id !== data.share_id) throw new Error('sharing the same item with the same peer again should give the same share_id (idempotent)');
        const hidden = (await c.tool('gc_kb_ingest', { name: 'contract-private', content: 'Private notes.', visibility: 'private' }, 'project')).item_id;
        const refused = await call(c.mcp('project'), 'gc_kb_share', { item_id: hidden, peer_id: data.peer_id });
        if (refused.data.error !== 'cannot_share_private') throw new Error(`a private item should be refused with cannot_share_private: ${JSON.stringify(refused.data)}`);
      },
    },
  ],
} satisfies ContractFile;
