// Spec: "Endpoints > Knowledge Hub" (all under /v1/projects/{project_id}/knowledge), with
// "Resources and their fields > Knowledge Hub" and "States and transitions > Knowledge item".
import { sampleDocument } from '../../helpers/server.js';
import { t, type ContractContext, type ContractFile, type Fields } from '../contract.js';

const P = '/v1/projects/:project_id/knowledge';

/** Knowledge Hub item: "UUID item_id; name; type; current_version_id; timestamps; metadata (JSON…); mcp_exposed flag; visibility; chunk_count". */
export const KB_ITEM: Fields = {
  item_id: t.uuid,
  name: t.string,
  type: t.string,
  current_version_id: t.uuid,
  metadata: t.object,
  mcp_exposed: t.boolean,
  visibility: t.enum('private', 'project', 'org', 'external'),
  chunk_count: t.integer,
};

/** "Query result chunk: raw_text (actual content), text (compressed skeleton view …), item_id, score (similarity)". */
export const KB_CHUNK: Fields = { raw_text: t.string, text: t.string, item_id: t.uuid, score: t.number };

const prefixed = (prefix: string, fields: Fields): Fields => Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${prefix}${k}`, v]));

async function freshItem(c: ContractContext, name: string): Promise<string> {
  return (await c.ok('POST', `/v1/projects/${c.fx.project_id}/knowledge/items`, { name, content: `# ${name}\n\nA short note about connection pools and retries.` })).item_id;
}

/** Issues an upload and PUTs its content to the signed upload URL (public, as a client would). */
export async function uploadedUpload(c: ContractContext, key: string): Promise<string> {
  const issued = await c.ok('POST', `/v1/projects/${c.fx.project_id}/knowledge/uploads`, { idempotency_key: key, name: `${key}.md` });
  const url = new URL(issued.upload_url);
  const put = await c.server.request('PUT', url.pathname + url.search, { key: null, body: { content: sampleDocument() } });
  if (put.status !== 200) throw new Error(`fixture: PUT to the upload URL answered ${put.status}: ${put.text.slice(0, 200)}`);
  return issued.upload_id;
}

export default {
  area: 'Knowledge Hub',
  routes: [
    {
      method: 'POST',
      path: `${P}/items`,
      spec: 'POST /items | IngestRequest (text or URL) -> IngestResponse | 201',
      request: (c) => ({ params: { project_id: c.fx.project_id }, body: { name: 'contract-ingest', content: sampleDocument(), metadata: { kind: 'runbook' } } }),
      status: 201,
      note: 'IngestResponse fields are not shown; the new item is named by its UUID item_id.',
      fields: { item_id: t.uuid },
    },
    {
      method: 'GET',
      path: `${P}/items`,
      spec: 'GET /items | query limit, cursor, metadata_filter (URL-encoded JSON containment filter) -> ListItemsResponse (cursor-paginated) | 200',
      request: (c) => ({ params: { project_id: c.fx.project_id }, query: { limit: 10, metadata_filter: JSON.stringify({ area: 'contract' }) } }),
      status: 200,
      note: 'The page container and cursor field are not named by the spec; its items are Knowledge Hub items.',
      fields: prefixed('items[].', KB_ITEM),
    },
    {
      method: 'GET',
      path: `${P}/items/:item_id`,
      spec: 'GET /items/{item_id} | -> ItemResponse | 200',
      request: (c) => ({ params: { project_id: c.fx.project_id, item_id: c.fx.item_id } }),
      status: 200,
      fields: KB_ITEM,
    },
    {
      method: 'PATCH',
      path: `${P}/items/:item_id`,
      spec: 'PATCH /items/{item_id} | EditRequest (name, content, base_version_id, mcp_exposed) -> ItemResponse | 200; PATCH with only name, or only mcp_exposed: same version, current_version_id unchanged',
      request: (c) => ({ params: { project_id: c.fx.project_id, item_id: c.fx.item_id }, body: { name: 'contract-item-renamed' } }),
      status: 200,
      fields: KB_ITEM,
      check: (res, c) => {
        if (res.json.current_version_id !== c.fx.version_id_2) throw new Error(`a name-only edit changed current_version_id (${c.fx.version_id_2} -> ${res.json.current_version_id})`);
      },
    },
    {
      method: 'DELETE',
      path: `${P}/items/:item_id`,
      spec: 'DELETE /items/{item_id} | -> DeleteResponse | 200; soft delete',
      request: async (c) => ({ params: { project_id: c.fx.project_id, item_id: await freshItem(c, 'contract-delete') } }),
      status: 200,
      note: 'DeleteResponse fields are not shown by the spec.',
    },
    {
      method: 'POST',
      path: `${P}/query`,
      spec: 'POST /query | QueryRequest -> QueryResponse | 200; vector search. Query result chunk: raw_text, text, item_id, score',
      request: (c) => ({ params: { project_id: c.fx.project_id }, body: { query: 'How do I change the listening port?' } }),
      status: 200,
      note: 'The result container is not named by the spec; its elements are query result chunks.',
      fields: prefixed('results[].', KB_CHUNK),
    },
    {
      method: 'GET',
      path: `${P}/items/:item_id/diff`,
      spec: "GET /items/{item_id}/diff | query from_version_id, to_version_id (both required UUID) -> DiffResponse | 200; DiffResponse with both versions' full content and a unified diff string",
      request: (c) => ({ params: { project_id: c.fx.project_id, item_id: c.fx.item_id }, query: { from_version_id: c.fx.version_id, to_version_id: c.fx.version_id_2 } }),
      status: 200,
      note: "The two versions' content fields are not named by the spec.",
      // "a unified diff string" -> unified_diff
      fields: { unified_diff: t.string },
      check: (res) => {
        if (!/^@@ /m.test(res.json.unified_diff) || !/^\+.*Appendix/m.test(res.json.unified_diff)) throw new Error('diff should be a unified diff that adds the Appendix');
      },
    },
    {
      method: 'POST',
      path: `${P}/uploads`,
      spec: 'POST /uploads | IssueUploadRequest -> IssueUploadResponse | 201; idempotent on idempotency_key. Upload: UUID upload_id; idempotency_key; signed upload URL',
      request: (c) => ({ params: { project_id: c.fx.project_id }, body: { idempotency_key: 'contract-upload-1', name: 'upload.md' } }),
      status: 201,
      fields: { upload_id: t.uuid, idempotency_key: t.const('contract-upload-1'), upload_url: t.string },
      check: async (res, c) => {
        const again = await c.server.request('POST', `/v1/projects/${c.fx.project_id}/knowledge/uploads`, { body: { idempotency_key: 'contract-upload-1', name: 'upload.md' } });
        if (again.json?.upload_id !== res.json.upload_id) throw new Error(`the same idempotency_key gave another upload (${again.status} ${again.text.slice(0, 200)})`);
      },
    },
    {
      method: 'POST',
      path: `${P}/uploads/:upload_id/complete`,
      spec: 'POST /uploads/{upload_id}/complete | MarkUploadCompleteRequest -> UploadCompleteResponse | 200',
      request: async (c) => ({ params: { project_id: c.fx.project_id, upload_id: await uploadedUpload(c, 'contract-upload-complete') }, body: {} }),
      status: 200,
      note: 'UploadCompleteResponse fields are not shown by the spec.',
    },
    {
      method: 'POST',
      path: `${P}/items/:item_id/reindex`,
      spec: 'POST /items/{item_id}/reindex | no body -> ReindexResponse (new version_id) | 202',
      request: async (c) => {
        const item_id = await freshItem(c, 'contract-reindex');
        await c.server.app.services.knowledge.idle();
        const before = await c.ok('GET', `/v1/projects/${c.fx.project_id}/knowledge/items/${item_id}`);
        c.fx.reindex_previous_version = before.current_version_id;
        return { params: { project_id: c.fx.project_id, item_id } };
      },
      status: 202,
      fields: { version_id: t.uuid },
      check: (res, c) => {
        if (res.json.version_id === c.fx.reindex_previous_version) throw new Error('reindex should answer a new version_id');
      },
    },
  ],
} satisfies ContractFile;
