// ingest_transcript: WebVTT, SRT or speaker-labelled text into a Knowledge Hub item of type
// transcript (its rendered lines are chunked and embedded like any document) plus timestamped
// segments per version for search_timeline.
import type { Call } from '../call.js';
import { invalid } from '../errors.js';
import { insertItem } from '../knowledge/items.js';
import { checkVisibility, MAX_CONTENT_CHARS } from '../knowledge/service.js';
import type { Queryable } from '../../store/db.js';
import type { TaskOutput } from '../ports/compute.js';
import { compute, countTokens, versionOut } from './common.js';
import { iso, nowIso } from '../../lib/time.js';

export type ParsedTranscript = TaskOutput<'ingestParseTranscript'>;
export const TRANSCRIPT_FORMATS = ['auto', 'vtt', 'srt', 'speaker_text'] as const;
export type TranscriptFormatArg = (typeof TRANSCRIPT_FORMATS)[number];
export const MAX_TRANSCRIPT_CHARS = MAX_CONTENT_CHARS;

export function parseTranscriptIn(call: Call, text: string, format: TranscriptFormatArg): Promise<ParsedTranscript> {
  return compute(call, 'ingestParseTranscript', { text, format }, { field: 'content' });
}

const SEGMENT_BATCH = 500;

/** Stores a parsed transcript's facts and segments for one version (recorded_at: null keeps the item's previous one, else now). */
export async function saveSegments(tx: Queryable, itemId: string, versionId: string, t: ParsedTranscript, recordedAt: string | null): Promise<void> {
  await tx.query(
    `insert into kb_transcripts (version_id, item_id, format, recorded_at, duration_ms, segment_count, timing)
     values ($1, $2, $3, coalesce($4::timestamptz, (select recorded_at from kb_transcripts where item_id = $2 order by recorded_at desc limit 1), now()), $5, $6, $7)`,
    [versionId, itemId, t.format, recordedAt, t.duration_ms, t.segments.length, t.timing],
  );
  for (let i = 0; i < t.segments.length; i += SEGMENT_BATCH) {
    const slice = t.segments.slice(i, i + SEGMENT_BATCH);
    const params: unknown[] = [versionId, itemId];
    const values = slice.map((s) => {
      params.push(s.ordinal, s.start_ms, s.end_ms, s.speaker, s.text);
      const b = params.length - 5;
      return `($1, $2, $${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5})`;
    });
    await tx.query(`insert into kb_segments (version_id, item_id, ordinal, start_ms, end_ms, speaker, text) values ${values.join(', ')}`, params);
  }
}

export interface TranscriptInput {
  content: string;
  format: TranscriptFormatArg;
  name?: string;
  recorded_at?: string;
  metadata?: Record<string, unknown>;
  visibility?: string;
  mcp_exposed?: boolean;
}

const SECONDS = (ms: number) => Math.round(ms) / 1000;

export async function ingestTranscript(call: Call, projectId: string, input: TranscriptInput) {
  const { services, principal } = call;
  const visibility = checkVisibility(input.visibility) ?? 'project';
  if (input.recorded_at !== undefined && Number.isNaN(Date.parse(input.recorded_at))) throw invalid(`recorded_at '${input.recorded_at}' is not an ISO-8601 date-time`);
  const t = await parseTranscriptIn(call, input.content, input.format);
  const [tokens] = await countTokens(call, [t.content]);
  const recordedAt = input.recorded_at ? iso(input.recorded_at) : nowIso();
  const name = input.name?.trim() || `Transcript (${t.format}, ${t.segments.length} segments)`;
  const { item, version } = await services.db.transaction(async (tx) => {
    const created = await insertItem(tx, {
      projectId,
      ownerId: principal.userId,
      keyId: principal.keyId,
      name,
      type: 'transcript',
      source: 'text',
      sourceUrl: null,
      content: t.content,
      metadata: input.metadata ?? {},
      mcpExposed: input.mcp_exposed ?? true,
      visibility,
    });
    await tx.query(`update kb_versions set tokens = $2, origin = 'transcript' where id = $1`, [created.version.id, tokens]);
    await saveSegments(tx, created.item.id, created.version.id, t, recordedAt);
    return created;
  });
  if (item.status === 'pending') services.knowledge.enqueue({ itemId: item.id, versionId: version.id });
  return {
    item_id: item.id,
    name: item.name,
    status: item.status,
    ...versionOut(version),
    format: t.format,
    timing: t.timing,
    recorded_at: recordedAt,
    segment_count: t.segments.length,
    duration_seconds: SECONDS(t.duration_ms),
    speakers: t.speakers,
    tokens: tokens!,
    segments: t.segments.slice(0, 20).map((s) => ({
      ordinal: s.ordinal,
      start_seconds: SECONDS(s.start_ms),
      end_seconds: SECONDS(s.end_ms),
      speaker: s.speaker,
      text: s.text,
    })),
  };
}

