import type { Queryable } from '../../store/db.js';

/** The spec's original-output preservation: automatic when compression exceeds 80%. */
export const PRESERVE_ABOVE_SAVINGS = 80;

export async function preserveOriginal(db: Queryable, userId: string, content: string, tokens: number): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    'insert into preserved_originals (user_id, content, content_tokens) values ($1, $2, $3) returning id',
    [userId, content, tokens],
  );
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
