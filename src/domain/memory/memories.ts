// Agent memory: memories scoped to a user and a project (the key's bound project, else the user's own
// scope), with their embeddings and token counts computed in the pool when stored. Search is hybrid:
// BM25 and embedding cosine in the pool (workers/memory/tasks.ts), fused by RRF with the Knowledge
// Hub's weights. The host caches each scope's corpus by its version (memory_scopes.version moves on
// every write), and each worker its index of it.
import type { Principal } from '../../auth/principal.js';
import type { Db, Queryable } from '../../store/db.js';
import type { Call } from '../call.js';
import { invalidInput, notFound } from '../errors.js';
import type { MemoryHit, MemorySearchMode } from '../../../workers/memory/tasks.js';
import { isoOrNull } from '../../lib/time.js';

export const MEMORY_KINDS = ['note', 'preference', 'fact', 'event'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];
export const MAX_MEMORY_CHARS = 20_000;
export const LIST_LIMIT_MAX = 100;

/** The scope a principal's memories live in: its key's project, or '' (the user's own). */
export interface Scope {
  userId: string;
  scope: string;
}

export function scopeOf(principal: Principal): Scope {
  return { userId: principal.userId, scope: principal.projectId ?? '' };
}

export interface MemoryRow {
  id: string;
  session_id: string | null;
  kind: MemoryKind;
  title: string;
  content: string;
  tags: unknown;
  tokens: number;
  created_at: Date | string;
}

function tagsOf(v: unknown): string[] {
  const t = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(t) ? t.map(String) : [];
}

export function memoryResponse(m: MemoryRow) {
  return {
    memory_id: m.id,
    title: m.title,
    content: m.content,
    kind: m.kind,
    tags: tagsOf(m.tags),
    session_id: m.session_id,
    tokens: m.tokens,
    created_at: isoOrNull(m.created_at),
  };
}

const MEMORY_COLUMNS = 'id, session_id, kind, title, content, tags, tokens, created_at';

/** Moves the scope's version on (inside the writing transaction). */
export async function bumpScope(tx: Queryable, s: Scope): Promise<void> {
  await tx.query(
    `insert into memory_scopes (user_id, scope, version) values ($1, $2, 1)
     on conflict (user_id, scope) do update set version = memory_scopes.version + 1`,
    [s.userId, s.scope],
  );
}

function encodeVector(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

function decodeInto(value: unknown, out: Float32Array, offset: number, dims: number): void {
  const bytes = value instanceof Uint8Array ? value : Buffer.from(String(value).replace(/^\\x/, ''), 'hex');
  const view = new Float32Array(dims);
  new Uint8Array(view.buffer).set(bytes.subarray(0, dims * 4));
  out.set(view, offset);
}

/** A default title: the content's first line, cut at 80 characters. */
export function titleOf(content: string): string {
  const line = content.trim().split('\n', 1)[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line || 'untitled';
}

export interface AddMemoryInput {
  content: string;
  title?: string;
  kind: MemoryKind;
  tags?: string[];
  sessionId: string | null;
  /** A fact or preference key: stores a bi-temporal fact with this memory's content as value. */
  factKey?: string;
  factValue?: string;
  validFrom?: string;
}

export interface FactRow {
  id: string;
  memory_id: string | null;
  kind: 'preference' | 'fact';
  key: string;
  value: string;
  valid_from: Date | string;
  valid_to: Date | string | null;
  recorded_at: Date | string;
  invalidated_at: Date | string | null;
  invalidation_reason: string | null;
  superseded_by: string | null;
}

export const FACT_COLUMNS = 'id, memory_id, kind, key, value, valid_from, valid_to, recorded_at, invalidated_at, invalidation_reason, superseded_by';

export function isCurrent(f: FactRow, now = Date.now()): boolean {
  return f.invalidated_at === null && new Date(f.valid_from).getTime() <= now && (f.valid_to === null || new Date(f.valid_to).getTime() > now);
}

export function factResponse(f: FactRow) {
  return {
    fact_id: f.id,
    key: f.key,
    value: f.value,
    kind: f.kind,
    memory_id: f.memory_id,
    valid_from: isoOrNull(f.valid_from),
    valid_to: isoOrNull(f.valid_to),
    recorded_at: isoOrNull(f.recorded_at),
    invalidated_at: isoOrNull(f.invalidated_at),
    invalidation_reason: f.invalidation_reason,
    superseded_by: f.superseded_by,
    current: isCurrent(f),
  };
}

export async function addMemory(call: Call, s: Scope, input: AddMemoryInput) {
  const title = (input.title ?? '').trim() || titleOf(input.content);
  const prepared = await call.compute('memoryPrepare', { texts: [`${title}\n${input.content}`] });
  const vector = prepared.vectors[0]!;
  const tags = [...new Set((input.tags ?? []).map((t) => t.trim()).filter(Boolean))];
  const validFrom = input.validFrom ? new Date(input.validFrom) : null;
  if (validFrom && Number.isNaN(validFrom.getTime())) {
    throw invalidInput('valid_from is not a date', [{ loc: ['valid_from'], msg: 'not an ISO 8601 date', type: 'value_error.datetime' }]);
  }
  const factKind: 'preference' | 'fact' | null = input.factKey ? (input.kind === 'preference' ? 'preference' : 'fact') : null;
  return call.services.db.transaction(async (tx) => {
    await bumpScope(tx, s);
    const [m] = await tx.query<MemoryRow>(
      `insert into memories (user_id, scope, session_id, kind, title, content, tags, tokens, embedding, dims)
       values ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8, $9, $10) returning ${MEMORY_COLUMNS}`,
      [s.userId, s.scope, input.sessionId, input.kind, title, input.content, JSON.stringify(tags), prepared.tokens[0]!, encodeVector(vector), prepared.dims],
    );
    let fact: FactRow | null = null;
    let superseded: string | null = null;
    if (factKind) {
      const key = input.factKey!.trim().toLowerCase();
      const value = (input.factValue ?? input.content).trim();
      const from = validFrom ?? new Date();
      fact = (await tx.query<FactRow>(
        `insert into memory_facts (user_id, scope, memory_id, kind, key, value, valid_from) values ($1, $2, $3, $4, $5, $6, $7) returning ${FACT_COLUMNS}`,
        [s.userId, s.scope, m!.id, factKind, key, value, from],
      ))[0] ?? null;
      // The value this one replaces: the open, not invalidated fact of the same key.
      const old = await tx.query<{ id: string }>(
        `update memory_facts set valid_to = greatest(valid_from, $4::timestamptz), superseded_by = $5
         where user_id = $1 and scope = $2 and key = $3 and id <> $5 and valid_to is null and invalidated_at is null and superseded_by is null
         returning id`,
        [s.userId, s.scope, key, from, fact!.id],
      );
      superseded = old[0]?.id ?? null;
    }
    return { memory: m!, fact, superseded };
  });
}

export async function listMemories(db: Queryable, s: Scope, opts: { limit: number; offset: number; kind?: MemoryKind; sessionId?: string }) {
  const params: unknown[] = [s.userId, s.scope];
  let where = 'user_id = $1 and scope = $2';
  if (opts.kind) {
    params.push(opts.kind);
    where += ` and kind = $${params.length}`;
  }
  if (opts.sessionId) {
    params.push(opts.sessionId);
    where += ` and session_id = $${params.length}`;
  }
  const [{ total }] = (await db.query<{ total: number }>(`select count(*)::int as total from memories where ${where}`, params)) as [{ total: number }];
  params.push(opts.limit, opts.offset);
  const rows = await db.query<MemoryRow>(
    `select ${MEMORY_COLUMNS} from memories where ${where} order by created_at desc, id desc limit $${params.length - 1} offset $${params.length}`,
    params,
  );
  return { rows, total };
}

export async function deleteMemory(db: Db, s: Scope, id: string) {
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ id: string }>('delete from memories where id = $1 and user_id = $2 and scope = $3 returning id', [id, s.userId, s.scope]);
    if (!rows.length) throw notFound('Memory not found');
    await bumpScope(tx, s);
    return rows[0]!.id;
  });
}

// ---- the scope's corpus, cached by version ----

interface Corpus {
  version: number;
  ids: string[];
  rows: Omit<MemoryRow, 'content'>[];
  texts: string[];
  vectors: Float32Array;
  dims: number;
}

const CORPUS_LIMIT = 64;
/** Memories held across cached scopes (texts and vectors; about 1 KB each). */
const CORPUS_MAX_MEMORIES = 200_000;
const corpora = new Map<string, Corpus>();
/** Distinguishes this process's corpora from another's in worker caches (tests start many apps). */
const NONCE = Math.random().toString(36).slice(2, 10);

async function scopeVersion(db: Queryable, s: Scope): Promise<number> {
  const [row] = await db.query<{ version: string | number }>('select version from memory_scopes where user_id = $1 and scope = $2', [s.userId, s.scope]);
  return row ? Number(row.version) : 0;
}

async function loadCorpus(db: Queryable, s: Scope): Promise<Corpus> {
  const key = `${s.userId}:${s.scope}`;
  for (let attempt = 0; ; attempt++) {
    const version = await scopeVersion(db, s);
    const cached = corpora.get(key);
    if (cached && cached.version === version) {
      corpora.delete(key);
      corpora.set(key, cached);
      return cached;
    }
    const rows = await db.query<MemoryRow & { embedding: unknown; dims: number }>(
      `select ${MEMORY_COLUMNS}, embedding, dims from memories where user_id = $1 and scope = $2 order by created_at desc, id desc`,
      [s.userId, s.scope],
    );
    if ((await scopeVersion(db, s)) !== version && attempt < 3) continue;
    const dims = rows[0]?.dims ?? 0;
    const vectors = new Float32Array(rows.length * dims);
    rows.forEach((r, i) => {
      if (r.dims === dims) decodeInto(r.embedding, vectors, i * dims, dims);
    });
    const corpus: Corpus = {
      version,
      ids: rows.map((r) => r.id),
      rows: rows.map(({ content: _c, embedding: _e, dims: _d, ...rest }) => rest),
      texts: rows.map((r) => `${r.title}\n${r.content}\n${tagsOf(r.tags).join(' ')}`),
      vectors,
      dims,
    };
    corpora.delete(key);
    corpora.set(key, corpus);
    // Bounded by scopes and by memories held (least recently used first; the newest always stays).
    let held = 0;
    for (const c of corpora.values()) held += c.ids.length;
    while (corpora.size > 1 && (corpora.size > CORPUS_LIMIT || held > CORPUS_MAX_MEMORIES)) {
      const [oldest, c] = corpora.entries().next().value!;
      corpora.delete(oldest);
      held -= c.ids.length;
    }
    return corpus;
  }
}

export interface SearchFilters {
  kind?: MemoryKind;
  sessionId?: string;
  tags?: string[];
}

export interface MemorySearchHit extends MemoryHit {
  memory_id: string;
}

/** Hybrid (or BM25-only, or dense-only) search over the scope's memories, best first. */
export async function searchMemories(call: Call, s: Scope, query: string, limit: number, mode: MemorySearchMode = 'hybrid', filters: SearchFilters = {}) {
  const corpus = await loadCorpus(call.services.db, s);
  if (!corpus.ids.length) return { hits: [] as MemorySearchHit[], corpus };
  let allowed: Int32Array | undefined;
  if (filters.kind || filters.sessionId || filters.tags?.length) {
    const idx: number[] = [];
    corpus.rows.forEach((r, i) => {
      if (filters.kind && r.kind !== filters.kind) return;
      if (filters.sessionId && r.session_id !== filters.sessionId) return;
      if (filters.tags?.length) {
        const t = tagsOf(r.tags);
        if (!filters.tags.every((x) => t.includes(x))) return;
      }
      idx.push(i);
    });
    if (!idx.length) return { hits: [] as MemorySearchHit[], corpus };
    allowed = Int32Array.from(idx);
  }
  const key = `${NONCE}:${s.userId}:${s.scope}:${corpus.version}`;
  const base = { key, query, limit, mode, allowed };
  let out = await call.compute('memorySearch', base);
  if (out.miss) out = await call.compute('memorySearch', { ...base, corpus: { texts: corpus.texts, vectors: corpus.vectors, dims: corpus.dims } });
  const hits = out.miss ? [] : out.hits.map((h) => ({ ...h, memory_id: corpus.ids[h.index]! }));
  return { hits, corpus };
}

/** Full rows of the given memories, in the given order. */
export async function memoriesByIds(db: Queryable, s: Scope, ids: string[]): Promise<MemoryRow[]> {
  if (!ids.length) return [];
  const rows = await db.query<MemoryRow>(`select ${MEMORY_COLUMNS} from memories where user_id = $1 and scope = $2 and id = any($3::uuid[])`, [s.userId, s.scope, ids]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is MemoryRow => !!r);
}

/** Compact index rows (no content) of the scope's most recent memories, from the cached corpus. */
export async function recentIndex(db: Queryable, s: Scope, limit: number) {
  const corpus = await loadCorpus(db, s);
  return { rows: corpus.rows.slice(0, limit), total: corpus.rows.length };
}

export { tagsOf };
