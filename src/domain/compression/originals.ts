import { hash } from 'node:crypto';
import type { Queryable } from '../../store/db.js';

/** The spec's original-output preservation: automatic when compression exceeds 80%. */
export const PRESERVE_ABOVE_SAVINGS = 80;

/**
 * The same owner's same text preserved again within this long gets the id already given instead of a
 * new row: an agent compressing one document repeatedly stores it once (on PGlite the INSERT was the
 * costliest statement of a computed compression, ~1.3 ms). Originals are only ever deleted with their
 * user, so a remembered id stays valid; the bound keeps the map small.
 */
const RECENT_MS = 5 * 60 * 1000;
const RECENT_MAX = 10_000;
const recentByDb = new WeakMap<Queryable, Map<string, { id: string; at: number }>>();

export async function preserveOriginal(db: Queryable, userId: string, content: string, tokens: number): Promise<string> {
  let recent = recentByDb.get(db);
  if (!recent) recentByDb.set(db, (recent = new Map()));
  const key = `${userId}:${tokens}:${hash('sha256', content, 'hex')}`;
  const now = Date.now();
  const seen = recent.get(key);
  if (seen && now - seen.at < RECENT_MS) return seen.id;
  const [row] = await db.query<{ id: string }>(
    'insert into preserved_originals (user_id, content, content_tokens) values ($1, $2, $3) returning id',
    [userId, content, tokens],
  );
  recent.delete(key);
  recent.set(key, { id: row!.id, at: now });
  if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value!);
  return row!.id;
}

/** Owner-scoped: another user's id reads as absent. */
export async function getPreservedOriginal(db: Queryable, userId: string, id: string): Promise<{ content: string; content_tokens: number; created_at: Date } | null> {
  const [row] = await db.query<{ content: string; content_tokens: number; created_at: Date }>(
    'select content, content_tokens, created_at from preserved_originals where id = $1 and user_id = $2',
    [id, userId],
  );
  return row ?? null;
}

/** The user's preserved originals, newest first; `prefix` narrows to ids that start with it (completion). */
export async function listPreservedOriginals(
  db: Queryable,
  userId: string,
  options: { prefix?: string; limit: number },
): Promise<{ id: string; content_tokens: number; created_at: Date }[]> {
  const prefix = (options.prefix ?? '').toLowerCase().replace(/[^0-9a-f-]/g, '');
  return db.query(
    `select id, content_tokens, created_at from preserved_originals
      where user_id = $1 and id::text like $2 order by created_at desc limit $3`,
    [userId, `${prefix}%`, options.limit],
  );
}

/** One page of the user's preserved originals (list_tee_entries): newest first, with a preview. */
export async function pagePreservedOriginals(db: Queryable, userId: string, page: number, pageSize: number, previewChars: number) {
  const rows = await db.query<{ id: string; content_tokens: number; created_at: Date; chars: number; preview: string; total: number }>(
    `select id, content_tokens, created_at, length(content)::int as chars, left(content, $4) as preview, count(*) over ()::int as total
       from preserved_originals where user_id = $1 order by created_at desc, id limit $2 offset $3`,
    [userId, pageSize, (page - 1) * pageSize, previewChars],
  );
  const total = rows[0]?.total ?? (page > 1 ? (await preservedStats(db, userId)).entries : 0);
  return { rows, total };
}

/** What the user's store of originals holds (tee_store_stats). */
export async function preservedStats(db: Queryable, userId: string) {
  const [row] = await db.query<{ entries: number; content_tokens: number; bytes: number; oldest: Date | null; newest: Date | null }>(
    `select count(*)::int as entries, coalesce(sum(content_tokens), 0)::int8 as content_tokens,
            coalesce(sum(octet_length(content)), 0)::int8 as bytes, min(created_at) as oldest, max(created_at) as newest
       from preserved_originals where user_id = $1`,
    [userId],
  );
  return { entries: row!.entries, content_tokens: Number(row!.content_tokens), bytes: Number(row!.bytes), oldest: row!.oldest, newest: row!.newest };
}
