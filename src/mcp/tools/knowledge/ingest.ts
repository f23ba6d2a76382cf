import { z } from 'zod';
import { visibilityArg } from './knowledge.js';
import { MAX_CONTENT_CHARS } from '../../../domain/knowledge/service.js';
import { boundProject } from '../../../domain/ingest/common.js';
import {
  BATCH_MAX_DOCUMENTS, batchIngest, HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX, refreshDocument, versionHistory,
} from '../../../domain/ingest/documents.js';
import { DUPLICATES_MAX_DOCUMENTS, DUPLICATES_THRESHOLD_DEFAULT, findDuplicates, SHINGLE_SIZE_DEFAULT } from '../../../domain/ingest/duplicates.js';
import { ingestMultimodal, MAX_MEDIA_BASE64, MAX_MEDIA_BYTES, MEDIA_KINDS, searchMultimodal } from '../../../domain/ingest/multimodal.js';
import { searchTimeline, TIMELINE_KINDS, TIMELINE_LIMIT_DEFAULT, TIMELINE_LIMIT_MAX } from '../../../domain/ingest/timeline.js';
import { ingestTranscript, TRANSCRIPT_FORMATS } from '../../../domain/ingest/transcripts.js';
import { QUERY_LIMIT_DEFAULT, QUERY_LIMIT_MAX } from '../../../domain/knowledge/query.js';
import { defineTool, type ToolDefinition } from '../../tool.js';
import { int } from '../outputs.js';

/** versionOut: the version an ingest wrote. */
const version = { version_id: z.string(), version_number: int, content_hash: z.string(), created_at: z.string() };
const ingested = z.looseObject({ item_id: z.string(), name: z.string(), status: z.string(), ...version, tokens: int });
const multimodalOutput = ingested.extend({ kind: z.enum(['pdf', 'image']), media_type: z.string(), sha256: z.string(), text_chars: int, preview: z.string() });

const itemId = z.string().uuid().describe('item_id of a Knowledge Hub item (gc_kb_list, or the ingest tools)');
const metadata = z.record(z.string(), z.unknown());
const visibility = visibilityArg;
const isoTime = z.string().min(1).max(64).describe('ISO-8601 date-time, e.g. 2026-11-26T09:30:00Z');

const multimodalInput = z
  .object({
    content_base64: z
      .string()
      .min(1)
      .max(MAX_MEDIA_BASE64 + 1024, { message: `The file exceeds ${MAX_MEDIA_BYTES} bytes (its base64 may be at most ${MAX_MEDIA_BASE64} characters)` })
      .describe(`The file, base64 (a data: URL is accepted); at most ${MAX_MEDIA_BYTES} bytes decoded`),
    media_type: z.string().max(100).optional().describe('application/pdf or image/png, image/jpeg, ...; the bytes decide when omitted'),
    name: z.string().trim().min(1).max(200).optional(),
    metadata: metadata.optional(),
    visibility,
    mcp_exposed: z.boolean().optional(),
  })
  .strict();

const multimodalDescription =
  "Ingests a PDF (its text layer, page by page) or an image (English OCR with tesseract) given as base64 into the key's project Knowledge Hub, as an item of type pdf or image whose text is chunked and embedded like any document. Parsing and OCR run in the worker pool with a time limit; corrupt or unsupported files are refused with a detail.";

function multimodalTool(name: 'ingest_multimodal' | 'multimodal_ingest'): ToolDefinition<typeof multimodalInput> {
  return defineTool({
    name,
    scope: 'mcp:write',
    needsProject: true,
    description: name === 'multimodal_ingest' ? `${multimodalDescription} Same as ingest_multimodal.` : multimodalDescription,
    output: multimodalOutput,
    input: multimodalInput,
    async handler(args, ctx) {
      const project = await boundProject(ctx.call);
      return { result: await ingestMultimodal(ctx.call, project, args) };
    },
  });
}

export const ingestTools = [
  defineTool({
    name: 'batch_ingest_documents',
    output: z.looseObject({
      // A failed document carries error and detail instead of the item.
      results: z.array(z.looseObject({ index: int, ok: z.boolean(), name: z.string().nullable(), item_id: z.string().optional(), error: z.string().optional() })),
      summary: z.looseObject({ total: int, created: int, failed: int }),
    }),
    scope: 'mcp:write',
    needsProject: true,
    description: `Ingests up to ${BATCH_MAX_DOCUMENTS} documents (each content or an https url) into the key's project Knowledge Hub in one call, 4 at a time. Every document gets its own result (item_id, version, content_hash, tokens, or error and detail); one failure does not stop the others. Chunking and embedding then run asynchronously as for gc_kb_ingest.`,
    input: z
      .object({
        documents: z
          .array(
            z
              .object({
                name: z.string().trim().min(1).max(200).optional(),
                content: z.string().max(MAX_CONTENT_CHARS).optional(),
                url: z.string().max(2048).optional().describe('An https URL fetched with SSRF protection'),
                type: z.string().trim().min(1).max(50).optional(),
                metadata: metadata.optional(),
                visibility,
                mcp_exposed: z.boolean().optional(),
              })
              .strict(),
          )
          .min(1)
          .max(BATCH_MAX_DOCUMENTS),
      })
      .strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx.call);
      return { result: await batchIngest(ctx.call, project, args.documents) };
    },
  }),
  defineTool({
    name: 'refresh_document',
    output: z.looseObject({
      item_id: z.string(),
      changed: z.boolean(),
      source: z.enum(['content', 'url']),
      ...version,
      previous_version_id: z.string().nullable(),
      tokens: int.nullable(),
      pruned_versions: int,
      status: z.string(),
    }),
    scope: 'mcp:write',
    needsProject: true,
    description:
      'Re-reads a Knowledge Hub document: the content you supply, else its stored source URL (fetched again with SSRF protection). A new version is written only when the content hash changed (changed: false otherwise); the last 10 versions are kept. Transcripts are parsed again.',
    input: z.object({ item_id: itemId, content: z.string().max(MAX_CONTENT_CHARS).optional().describe('The new content; omit to re-fetch the stored source URL') }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx.call);
      return { result: await refreshDocument(ctx.call, project, args.item_id, { content: args.content }) };
    },
  }),
  defineTool({
    name: 'get_version_history',
    output: z.looseObject({
      item_id: z.string(),
      name: z.string(),
      current_version_id: z.string().nullable(),
      total_versions: int,
      versions: z.array(z.looseObject({ ...version, tokens: int, chars: int, origin: z.string(), current: z.boolean() })),
    }),
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description: `A Knowledge Hub document's versions, newest first: version id and number, content hash (SHA-256), time, token count (o200k_base), size, what wrote it, and which is current. limit 1-${HISTORY_LIMIT_MAX} (default ${HISTORY_LIMIT_DEFAULT}).`,
    input: z.object({ item_id: itemId, limit: z.number().int().min(1).max(HISTORY_LIMIT_MAX).default(HISTORY_LIMIT_DEFAULT) }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx.call);
      return { result: await versionHistory(ctx.call, project, args.item_id, args.limit) };
    },
  }),
  defineTool({
    name: 'find_duplicates',
    output: z.looseObject({
      method: z.literal('minhash'),
      threshold: z.number(),
      compared_documents: int,
      clusters: z.array(
        z.looseObject({
          cluster_id: int,
          size: int,
          items: z.array(z.looseObject({ item_id: z.string(), name: z.string() })),
          pairs: z.array(z.looseObject({ item_a: z.string(), item_b: z.string(), similarity: z.number(), identical: z.boolean() })),
        }),
      ),
      total_clusters: int,
    }),
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description: `Near-duplicate clusters among the project's Knowledge Hub documents (up to the newest ${DUPLICATES_MAX_DOCUMENTS}): MinHash with LSH over word shingles finds candidates, and each pair's exact Jaccard similarity of shingles is reported; pairs at or above threshold (default ${DUPLICATES_THRESHOLD_DEFAULT}) join a cluster.`,
    input: z
      .object({
        threshold: z.number().min(0.3).max(1).default(DUPLICATES_THRESHOLD_DEFAULT),
        shingle_size: z.number().int().min(1).max(10).default(SHINGLE_SIZE_DEFAULT).describe('Words per shingle'),
        item_ids: z.array(z.string().uuid()).min(2).max(DUPLICATES_MAX_DOCUMENTS).optional().describe('Compare only these items'),
        max_clusters: z.number().int().min(1).max(200).default(50),
      })
      .strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx.call);
      return { result: await findDuplicates(ctx.call, project, args) };
    },
  }),
  defineTool({
    name: 'ingest_transcript',
    output: ingested.extend({
      format: z.string(),
      timing: z.string(),
      recorded_at: z.string(),
      segment_count: int,
      duration_seconds: z.number(),
      speakers: z.array(z.string()),
      segments: z.array(z.looseObject({ ordinal: int })),
    }),
    scope: 'mcp:write',
    needsProject: true,
    description:
      "Ingests a transcript — WebVTT, SRT, or speaker-labelled text (\"[00:01:02] Alice: ...\", \"Alice: ...\") — into timestamped segments with speakers, stored as a transcript item in the key's project Knowledge Hub (searchable with gc_kb_query and, by time, with search_timeline). recorded_at places it on the wall clock (default: now). Text without timestamps gets estimated times (timing: estimated).",
    input: z
      .object({
        content: z.string().min(1).max(MAX_CONTENT_CHARS),
        format: z.enum(TRANSCRIPT_FORMATS).default('auto'),
        name: z.string().trim().min(1).max(200).optional(),
        recorded_at: isoTime.optional().describe('When the recording started (ISO-8601); default: now'),
        metadata: metadata.optional(),
        visibility,
        mcp_exposed: z.boolean().optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx.call);
      return { result: await ingestTranscript(ctx.call, project, args) };
    },
  }),
  defineTool({
    name: 'search_timeline',
    output: z.looseObject({
      query: z.string().nullable(),
      from: z.string().nullable(),
      to: z.string().nullable(),
      // Transcript hits carry segment, start/end_seconds and speaker; document hits chunk_index and heading.
      results: z.array(z.looseObject({ kind: z.enum(['transcript', 'document']), item_id: z.string(), timestamp: z.string().nullable(), text: z.string(), score: z.number().nullable() })),
      total: int,
      candidates_truncated: z.boolean(),
    }),
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description:
      'Searches transcripts and documents of the project by time: transcript segments sit at recorded_at + offset, document chunks at the time their current version was written. Filter by from/to (ISO-8601), by offset within recordings (offset_from_seconds/offset_to_seconds) or speaker (both leave documents out); with a query, hits are ranked by BM25, else listed by time.',
    input: z
      .object({
        query: z.string().trim().max(2000).optional(),
        from: isoTime.optional(),
        to: isoTime.optional(),
        offset_from_seconds: z.number().min(0).optional(),
        offset_to_seconds: z.number().min(0).optional(),
        speaker: z.string().trim().min(1).max(100).optional(),
        kinds: z.array(z.enum(TIMELINE_KINDS)).min(1).max(2).optional(),
        item_ids: z.array(z.string().uuid()).min(1).max(1000).optional(),
        limit: z.number().int().min(1).max(TIMELINE_LIMIT_MAX).default(TIMELINE_LIMIT_DEFAULT),
        order: z.enum(['relevance', 'time']).optional().describe('Default: relevance with a query, else time'),
      })
      .strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx.call);
      return { result: await searchTimeline(ctx.call, project, args) };
    },
  }),
  multimodalTool('ingest_multimodal'),
  multimodalTool('multimodal_ingest'),
  defineTool({
    name: 'search_multimodal',
    output: z.looseObject({
      query: z.string(),
      results: z.array(
        z.looseObject({ item_id: z.string(), kind: z.string(), pages: z.array(int), ocr_confidence: z.number().nullable(), chunk_id: z.string(), text: z.string(), score: z.number() }),
      ),
      total: int,
      searched_items: int,
    }),
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description:
      "Hybrid search (vector + BM25) over the project's PDF and image items only: hits with the item, its kind, the PDF pages the passage is on, the image's OCR confidence, and the text.",
    input: z
      .object({
        query: z.string().trim().min(1).max(2000),
        limit: z.number().int().min(1).max(QUERY_LIMIT_MAX).default(QUERY_LIMIT_DEFAULT),
        kinds: z.array(z.enum(MEDIA_KINDS)).min(1).max(2).optional(),
        item_ids: z.array(z.string().uuid()).min(1).max(1000).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx.call);
      return { result: await searchMultimodal(ctx.call, project, args) };
    },
  }),
];
