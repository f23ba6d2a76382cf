// search_timeline: a query and a time range over transcript segments and document chunks of the
// project. Transcript segments sit at recorded_at + their offset; document chunks at the time their
// current version was written. Ranking (BM25) runs in the pool.
import type { Call } from '../call.js';
import { invalid } from '../errors.js';
import { visibleParams, visibleSql } from '../knowledge/items.js';
import { compute } from './common.js';
import { iso } from '../../lib/time.js';

/** Candidates read per kind for one query (most recent first); past it the result says candidates_truncated. */
export const TIMELINE_MAX_CANDIDATES = 20_000;
export const TIMELINE_LIMIT_DEFAULT = 20;
export const TIMELINE_LIMIT_MAX = 100;
export const TIMELINE_KINDS = ['transcript', 'document'] as const;

export interface TimelineInput {
  query?: string;
  from?: string;
  to?: string;
  offset_from_seconds?: number;
  offset_to_seconds?: number;
  speaker?: string;
  kinds?: (typeof TIMELINE_KINDS)[number][];
  item_ids?: string[];
  limit: number;
  order?: 'relevance' | 'time';
}

interface Hit {
  kind: 'transcript' | 'document';
  item_id: string;
  item_name: string;
  version_id: string;
  position: number;
  start_ms: number | null;
  end_ms: number | null;
  speaker: string | null;
  heading: string | null;
  text: string;
  at: Date | string;
  end_at: Date | string;
}


function checkTime(name: string, v: string | undefined): string | null {
  if (v === undefined) return null;
  if (Number.isNaN(Date.parse(v))) throw invalid(`${name} '${v}' is not an ISO-8601 date-time`);
  return iso(v);
}

async function segments(call: Call, projectId: string, input: TimelineInput, from: string | null, to: string | null, cap: number): Promise<Hit[]> {
  const params: unknown[] = [projectId, ...visibleParams(call.principal)];
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const at = (col: string) => `(t.recorded_at + make_interval(secs => ${col} / 1000.0))`;
  let where = `i.project_id = $1 and i.deleted_at is null and ${visibleSql('i', 2)}`;
  if (from) where += ` and ${at('s.end_ms')} >= ${add(from)}::timestamptz`;
  if (to) where += ` and ${at('s.start_ms')} <= ${add(to)}::timestamptz`;
  if (input.offset_from_seconds !== undefined) where += ` and s.end_ms >= ${add(Math.round(input.offset_from_seconds * 1000))}`;
  if (input.offset_to_seconds !== undefined) where += ` and s.start_ms <= ${add(Math.round(input.offset_to_seconds * 1000))}`;
  if (input.speaker) where += ` and lower(s.speaker) = lower(${add(input.speaker)})`;
  if (input.item_ids?.length) where += ` and i.id = any(${add(input.item_ids)}::uuid[])`;
  return call.services.db.query<Hit>(
    `select 'transcript' as kind, s.item_id, i.name as item_name, s.version_id, s.ordinal as position, s.start_ms, s.end_ms, s.speaker,
            null as heading, s.text, ${at('s.start_ms')} as at, ${at('s.end_ms')} as end_at
       from kb_segments s
       join kb_items i on i.id = s.item_id and i.current_version_id = s.version_id
       join kb_transcripts t on t.version_id = s.version_id
      where ${where}
      order by at desc, s.item_id, s.ordinal limit ${add(cap)}`,
    params,
  );
}

async function chunks(call: Call, projectId: string, input: TimelineInput, from: string | null, to: string | null, cap: number): Promise<Hit[]> {
  const params: unknown[] = [projectId, ...visibleParams(call.principal)];
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  let where = `c.project_id = $1 and i.deleted_at is null and i.type <> 'transcript' and ${visibleSql('i', 2)}`;
  if (from) where += ` and v.created_at >= ${add(from)}::timestamptz`;
  if (to) where += ` and v.created_at <= ${add(to)}::timestamptz`;
  if (input.item_ids?.length) where += ` and i.id = any(${add(input.item_ids)}::uuid[])`;
  return call.services.db.query<Hit>(
    `select 'document' as kind, c.item_id, i.name as item_name, c.version_id, c.ordinal as position, null::bigint as start_ms, null::bigint as end_ms,
            null as speaker, c.heading, c.raw_text as text, v.created_at as at, v.created_at as end_at
       from kb_chunks c
       join kb_items i on i.id = c.item_id and i.current_version_id = c.version_id
       join kb_versions v on v.id = c.version_id
      where ${where}
      order by v.created_at desc, c.item_id, c.ordinal limit ${add(cap)}`,
    params,
  );
}

export async function searchTimeline(call: Call, projectId: string, input: TimelineInput) {
  const from = checkTime('from', input.from);
  const to = checkTime('to', input.to);
  if (from && to && from > to) throw invalid('from is after to');
  if (input.offset_from_seconds !== undefined && input.offset_to_seconds !== undefined && input.offset_from_seconds > input.offset_to_seconds) {
    throw invalid('offset_from_seconds is after offset_to_seconds');
  }
  const kinds = new Set(input.kinds?.length ? input.kinds : TIMELINE_KINDS);
  // Offsets and speakers exist only inside recordings: those filters leave documents out.
  const transcriptOnly = input.offset_from_seconds !== undefined || input.offset_to_seconds !== undefined || !!input.speaker;
  const query = input.query?.trim() || null;
  const cap = query ? TIMELINE_MAX_CANDIDATES : input.limit;
  const [segs, docs] = await Promise.all([
    kinds.has('transcript') ? segments(call, projectId, input, from, to, cap + 1) : Promise.resolve([]),
    kinds.has('document') && !transcriptOnly ? chunks(call, projectId, input, from, to, cap + 1) : Promise.resolve([]),
  ]);
  const truncated = segs.length > cap || docs.length > cap;
  const candidates = [...segs.slice(0, cap), ...docs.slice(0, cap)];
  let picked: { hit: Hit; score: number | null }[];
  let queryTerms: string[] = [];
  if (query) {
    const texts = candidates.map((h) => [h.speaker, h.heading, h.text].filter(Boolean).join(' '));
    const ranked = await compute(call, 'ingestRank', { query, texts, limit: input.limit });
    queryTerms = ranked.query_terms;
    picked = ranked.hits.map((r) => ({ hit: candidates[r.index]!, score: r.score }));
  } else {
    picked = candidates.map((hit) => ({ hit, score: null }));
    picked.sort((a, b) => +new Date(a.hit.at) - +new Date(b.hit.at));
    picked = picked.slice(-input.limit);
  }
  if ((input.order ?? (query ? 'relevance' : 'time')) === 'time') picked.sort((a, b) => +new Date(a.hit.at) - +new Date(b.hit.at) || a.hit.position - b.hit.position);
  return {
    query,
    query_terms: queryTerms,
    from,
    to,
    results: picked.map(({ hit, score }) => ({
      kind: hit.kind,
      item_id: hit.item_id,
      item_name: hit.item_name,
      version_id: hit.version_id,
      ...(hit.kind === 'transcript'
        ? { segment: hit.position, start_seconds: Number(hit.start_ms) / 1000, end_seconds: Number(hit.end_ms) / 1000, speaker: hit.speaker }
        : { chunk_index: hit.position, heading: hit.heading }),
      timestamp: iso(hit.at),
      end_timestamp: iso(hit.end_at),
      text: hit.text,
      score,
    })),
    total: picked.length,
    candidates: candidates.length,
    candidates_truncated: truncated,
  };
}
