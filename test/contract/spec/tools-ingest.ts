// Spec: "Tool catalogue > Pro tools": ingestion (batch_ingest_documents, ingest_multimodal,
// ingest_transcript), search (find_duplicates, search_multimodal, search_timeline) and the general
// tools get_version_history, multimodal_ingest, refresh_document; "Limits > Version history
// default: last 10 versions kept on refresh_document". The spec names no response fields for these
// tools; entries check the names docs/ingestion.md gives (noted per entry). They write into the
// Knowledge Hub, so they use the owner's project-bound key.
import { makePdf } from '../../ingest/helpers.js';
import { t, type ContractContext, type ContractFile } from '../contract.js';

const NO_FIELDS = 'The spec lists the tool without response fields; the checked names are the ones docs/ingestion.md uses.';
const PDF_B64 = makePdf(['Contract suite PDF: the lighthouse keeper logs every storm.']).toString('base64');
const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Alice>The contract suite checks the transcript timeline.\n\n00:00:05.000 --> 00:00:08.000\n<v Bob>Segments carry their offsets.\n';
const settle = (c: ContractContext) => c.server.app.services.knowledge.idle();

export default {
  area: 'MCP tools: documents, transcripts and media',
  setup: async (c) => {
    const text = 'Ingestion contract: duplicate detection groups copies of this paragraph about retry budgets and jittered back-off.';
    c.fx.ingest_dup_a = (await c.tool('gc_kb_ingest', { name: 'contract-dup-a', content: text }, 'project')).item_id;
    c.fx.ingest_dup_b = (await c.tool('gc_kb_ingest', { name: 'contract-dup-b', content: text }, 'project')).item_id;
    c.fx.ingest_transcript_id = (await c.tool('ingest_transcript', { content: VTT, name: 'contract-transcript', recorded_at: '2026-01-05T10:00:00Z' }, 'project')).item_id;
    c.fx.ingest_pdf_id = (await c.tool('ingest_multimodal', { content_base64: PDF_B64, name: 'contract-pdf' }, 'project')).item_id;
    await settle(c);
  },
  tools: [
    {
      tool: 'batch_ingest_documents',
      spec: 'ingestion | batch_ingest_documents (as BatchResponse: "results list, one per document; a failed document carries an error field; plus aggregate summary statistics")',
      args: { documents: [{ name: 'contract-batch-1', content: '# One\n\nFirst batch document.' }, { name: 'contract-batch-2', content: '# Two\n\nSecond batch document.' }] },
      key: 'project',
      note: `${NO_FIELDS} results and summary follow the batch compression response the spec describes.`,
      fields: { 'results[].item_id': t.uuid, 'results[].version_id': t.uuid, 'results[].content_hash': t.string, summary: t.object, 'summary.created': t.integer },
      check: async (data) => {
        if (data.results.length !== 2) throw new Error('one result per document');
      },
    },
    {
      tool: 'refresh_document',
      spec: 'general | refresh_document; Limits: "Version history default: last 10 versions kept on refresh_document"',
      args: (c) => ({ item_id: c.fx.ingest_dup_b, content: 'Ingestion contract: a refreshed text.' }),
      key: 'project',
      note: NO_FIELDS,
      fields: { item_id: t.uuid, changed: t.boolean, version_id: t.uuid, version_number: t.integer, content_hash: t.string },
      check: async (data, c) => {
        if (data.changed !== true) throw new Error('new content should make a new version');
        const again = await c.tool('refresh_document', { item_id: data.item_id, content: 'Ingestion contract: a refreshed text.' }, 'project');
        if (again.changed !== false) throw new Error('the same content should not make a new version');
      },
    },
    {
      tool: 'get_version_history',
      spec: 'general | get_version_history',
      args: (c) => ({ item_id: c.fx.item_id }),
      key: 'project',
      note: NO_FIELDS,
      fields: {
        item_id: t.uuid,
        'versions[].version_id': t.uuid,
        'versions[].content_hash': t.string,
        'versions[].created_at': t.timestamp,
        'versions[].tokens': t.integer,
        'versions[].current': t.boolean,
      },
    },
    {
      tool: 'find_duplicates',
      spec: 'search | find_duplicates',
      args: (c) => ({ item_ids: [c.fx.ingest_dup_a, c.fx.item_id, c.fx.ingest_transcript_id] }),
      key: 'project',
      note: NO_FIELDS,
      fields: { threshold: t.number, clusters: t.array, compared_documents: t.integer },
      check: async (_data, c) => {
        const copy = (await c.tool('gc_kb_ingest', { name: 'contract-dup-c', content: 'Ingestion contract: duplicate detection groups copies of this paragraph about retry budgets and jittered back-off.' }, 'project')).item_id;
        const r = await c.tool('find_duplicates', { item_ids: [c.fx.ingest_dup_a, copy] }, 'project');
        if (r.clusters.length !== 1 || r.clusters[0].pairs[0].similarity !== 1) throw new Error(`two identical documents should form one cluster: ${JSON.stringify(r)}`);
      },
    },
    {
      tool: 'ingest_transcript',
      spec: 'ingestion | ingest_transcript',
      args: { content: VTT, name: 'contract-transcript-2' },
      key: 'project',
      note: NO_FIELDS,
      fields: { item_id: t.uuid, format: t.enum('vtt', 'srt', 'speaker_text'), segment_count: t.integer, 'segments[].start_seconds': t.number, 'segments[].text': t.string },
    },
    {
      tool: 'search_timeline',
      spec: 'search | search_timeline',
      args: { query: 'transcript timeline', from: '2026-01-05T00:00:00Z', to: '2026-01-06T00:00:00Z' },
      key: 'project',
      note: NO_FIELDS,
      fields: { 'results[].item_id': t.uuid, 'results[].kind': t.enum('transcript', 'document'), 'results[].timestamp': t.timestamp, 'results[].text': t.string },
    },
    {
      tool: 'ingest_multimodal',
      spec: 'ingestion | ingest_multimodal',
      args: { content_base64: PDF_B64, name: 'contract-pdf-2', media_type: 'application/pdf' },
      key: 'project',
      note: NO_FIELDS,
      fields: { item_id: t.uuid, kind: t.enum('pdf', 'image'), version_id: t.uuid },
    },
    {
      tool: 'multimodal_ingest',
      spec: 'general | multimodal_ingest (the same use case as ingest_multimodal)',
      args: { content_base64: PDF_B64, name: 'contract-pdf-3' },
      key: 'project',
      note: NO_FIELDS,
      fields: { item_id: t.uuid, kind: t.enum('pdf', 'image'), version_id: t.uuid },
    },
    {
      tool: 'search_multimodal',
      spec: 'search | search_multimodal',
      args: async (c) => {
        await settle(c);
        return { query: 'lighthouse keeper storm', item_ids: [c.fx.ingest_pdf_id] };
      },
      key: 'project',
      note: NO_FIELDS,
      fields: { 'results[].item_id': t.uuid, 'results[].kind': t.enum('pdf', 'image'), 'results[].text': t.string, 'results[].score': t.number },
    },
  ],
} satisfies ContractFile;
