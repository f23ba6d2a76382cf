// ingest_multimodal / multimodal_ingest and search_multimodal: PDFs by their text layer and images
// by OCR (both in the pool), stored as Knowledge Hub items of type pdf or image whose content is
// the extracted text under "## Page N" / "## Image text (OCR)" headings; search is the hub's hybrid
// query restricted to those items, with each hit's pages found from its offset in the content.
import { createHash } from 'node:crypto';
import type { Call } from '../call.js';
import { invalid } from '../errors.js';
import { insertItem, parseJsonb, visibleParams, visibleSql } from '../knowledge/items.js';
import { queryKnowledge } from '../knowledge/query.js';
import { checkVisibility } from '../knowledge/service.js';
import { compute, countTokens, versionOut } from './common.js';

/** Largest decoded file: 4 MiB (its base64 is ~5.6 MB, inside the 8 MiB request limit). */
export const MAX_MEDIA_BYTES = 4 * 1024 * 1024;
export const MAX_MEDIA_BASE64 = Math.ceil(MAX_MEDIA_BYTES / 3) * 4 + 4;
/** OCR of one image gets this long in its worker; the pool deadline is a little longer. */
export const OCR_TIMEOUT_MS = 30_000;
export const MEDIA_DEADLINE_MS = 60_000;
export const MEDIA_KINDS = ['pdf', 'image'] as const;
/** Items a search_multimodal looks at (newest first). */
const SEARCH_MAX_ITEMS = 5000;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Base64 (optionally a data: URL) to bytes; anything that is not clean base64 is refused. */
export function decodeBase64(value: string): Buffer {
  const body = value.replace(/^data:[^,]{0,200},/, '').replace(/\s+/g, '');
  if (!body) throw invalid('content_base64 is empty');
  if (body.length % 4 !== 0 || !BASE64.test(body)) throw invalid('content_base64 is not valid base64');
  if (body.length > MAX_MEDIA_BASE64) throw invalid(`The file exceeds ${MAX_MEDIA_BYTES} bytes`, { code: 'too_large' });
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length > MAX_MEDIA_BYTES) throw invalid(`The file is ${bytes.length} bytes (at most ${MAX_MEDIA_BYTES})`, { code: 'too_large' });
  return bytes;
}

/** What kind the declared media type names (null: let the bytes say). */
function expectedKind(mediaType: string | undefined): 'pdf' | 'image' | null {
  if (!mediaType) return null;
  const t = mediaType.toLowerCase().split(';')[0]!.trim();
  if (t === 'application/pdf') return 'pdf';
  if (t.startsWith('image/')) return 'image';
  throw invalid(`Unsupported media_type '${mediaType}': give application/pdf or an image/* type`);
}

const PAGE_HEADING = (n: number) => `## Page ${n}`;
const OCR_HEADING = '## Image text (OCR)';

export interface MultimodalInput {
  content_base64: string;
  media_type?: string;
  name?: string;
  metadata?: Record<string, unknown>;
  visibility?: string;
  mcp_exposed?: boolean;
}

export async function ingestMultimodal(call: Call, projectId: string, input: MultimodalInput) {
  const { services, principal } = call;
  const visibility = checkVisibility(input.visibility) ?? 'project';
  const expect = expectedKind(input.media_type);
  const bytes = decodeBase64(input.content_base64);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const media = await compute(
    call,
    'ingestExtractMedia',
    { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), expect, ocrTimeoutMs: OCR_TIMEOUT_MS },
    { field: 'content_base64', deadlineMs: MEDIA_DEADLINE_MS },
  );
  const title = input.name?.trim() || (media.kind === 'pdf' ? `PDF (${media.total_pages} pages)` : `Image (${media.format.toUpperCase()})`);
  let content: string;
  let facts: Record<string, unknown>;
  if (media.kind === 'pdf') {
    const withText = media.pages.map((text, i) => ({ page: i + 1, text })).filter((p) => p.text);
    if (!withText.length) throw invalid('The PDF has no text layer (scanned pages are not OCR\'d): nothing to ingest');
    content = `# ${title}\n\n${withText.map((p) => `${PAGE_HEADING(p.page)}\n\n${p.text}`).join('\n\n')}`;
    facts = { kind: 'pdf', media_type: 'application/pdf', bytes: bytes.length, sha256, total_pages: media.total_pages, pages_with_text: withText.length };
  } else {
    if (!media.text) throw invalid('No text was recognised in the image: nothing to ingest');
    content = `# ${title}\n\n${OCR_HEADING}\n\n${media.text}`;
    facts = {
      kind: 'image', media_type: `image/${media.format}`, bytes: bytes.length, sha256, width: media.width, height: media.height,
      ocr_confidence: media.confidence, ocr_words: media.words,
    };
  }
  const [tokens] = await countTokens(call, [content]);
  const { item, version } = await services.db.transaction(async (tx) => {
    const created = await insertItem(tx, {
      projectId,
      ownerId: principal.userId,
      keyId: principal.keyId,
      name: title,
      type: media.kind,
      source: 'upload',
      sourceUrl: null,
      content,
      metadata: { ...(input.metadata ?? {}), media: facts },
      mcpExposed: input.mcp_exposed ?? true,
      visibility,
    });
    await tx.query(`update kb_versions set tokens = $2, origin = 'multimodal' where id = $1`, [created.version.id, tokens]);
    return created;
  });
  if (item.status === 'pending') services.knowledge.enqueue({ itemId: item.id, versionId: version.id });
  return {
    item_id: item.id,
    name: item.name,
    status: item.status,
    ...versionOut(version),
    ...facts,
    text_chars: content.length,
    tokens: tokens!,
    preview: (media.kind === 'pdf' ? media.pages.find(Boolean) ?? '' : media.text).slice(0, 300),
  };
}

/** The pages a slice [start, end) of a PDF item's content lies on (from its "## Page N" headings). */
export function pagesOf(content: string, start: number, end: number): number[] {
  const marks = [...content.matchAll(/^## Page (\d+)$/gm)].map((m) => ({ at: m.index!, page: Number(m[1]) }));
  const pages: number[] = [];
  for (let i = 0; i < marks.length; i++) {
    const from = marks[i]!.at;
    const to = marks[i + 1]?.at ?? content.length;
    if (from < end && to > start) pages.push(marks[i]!.page);
  }
  return pages;
}

export interface MultimodalSearchInput {
  query: string;
  limit: number;
  kinds?: ('pdf' | 'image')[];
  item_ids?: string[];
}

export async function searchMultimodal(call: Call, projectId: string, input: MultimodalSearchInput) {
  const { services, principal } = call;
  const kinds = input.kinds?.length ? input.kinds : [...MEDIA_KINDS];
  const params: unknown[] = [projectId, ...visibleParams(principal), kinds];
  let where = `i.project_id = $1 and i.deleted_at is null and ${visibleSql('i', 2)} and i.type = any($4::text[])`;
  if (input.item_ids?.length) {
    params.push(input.item_ids);
    where += ` and i.id = any($${params.length}::uuid[])`;
  }
  const items = await services.db.query<{ id: string; type: string; metadata: unknown }>(
    `select i.id, i.type, i.metadata from kb_items i where ${where} order by i.created_at desc limit ${SEARCH_MAX_ITEMS}`,
    params,
  );
  if (!items.length) return { query: input.query, results: [], total: 0, searched_items: 0 };
  const byId = new Map(items.map((i) => [i.id, i]));
  const out = await queryKnowledge(services, principal, projectId, { query: input.query, limit: input.limit, itemIds: [...byId.keys()], mcpExposedOnly: true }, call.signal);
  const versions = [...new Set(out.results.map((r) => r.version_id))];
  const contents = versions.length
    ? new Map((await services.db.query<{ id: string; content: string }>('select id, content from kb_versions where id = any($1::uuid[])', [versions])).map((v) => [v.id, v.content]))
    : new Map<string, string>();
  const results = out.results.map((r) => {
    const item = byId.get(r.item_id)!;
    const media = (parseJsonb(item.metadata).media ?? {}) as Record<string, unknown>;
    const content = contents.get(r.version_id) ?? '';
    const at = content.indexOf(r.raw_text);
    return {
      item_id: r.item_id,
      item_name: r.item_name,
      kind: item.type,
      media_type: (media.media_type as string | undefined) ?? null,
      pages: item.type === 'pdf' && at >= 0 ? pagesOf(content, at, at + r.raw_text.length) : [],
      ocr_confidence: (media.ocr_confidence as number | undefined) ?? null,
      chunk_id: r.chunk_id,
      text: r.raw_text,
      score: r.score,
      rank_score: r.rank_score,
    };
  });
  return { query: input.query, results, total: results.length, searched_items: items.length };
}
