// Community posts: Markdown an author publishes as a draft (always); a moderator (an admin) approves or
// rejects it, and only approved posts appear in the feed, newest approval first.
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../store/db.js';
import { notFound } from '../errors.js';
import { requireModerator } from './skills.js';
import { isoOrNull } from '../../lib/time.js';

export const MAX_POST_CHARS = 100_000;
export const MAX_TITLE_CHARS = 120;
export const FEED_LIMIT_MAX = 50;
export type PostStatus = 'draft' | 'approved' | 'rejected';
export type Decision = 'approve' | 'reject';

export interface PostRow {
  id: string;
  author_id: string;
  author_name?: string | null;
  slug: string;
  title: string;
  body: string;
  status: PostStatus;
  moderated_at: Date | string | null;
  moderation_note: string | null;
  created_at: Date | string;
}

const COLUMNS = 'p.id, p.author_id, p.slug, p.title, p.body, p.status, p.moderated_at, p.moderation_note, p.created_at';

/** The title: the given one, else the first heading or line of the body, as plain text. */
export function titleOf(body: string, given?: string): string {
  const source = given?.trim() || body.split('\n').map((l) => l.trim()).find((l) => l.length > 0) || 'Untitled';
  const plain = source.replace(/^#{1,6}\s+/, '').replace(/[*_`~[\]]/g, '').replace(/\(https?:\/\/[^)]*\)/g, '').replace(/\s+/g, ' ').trim() || 'Untitled';
  return plain.length > MAX_TITLE_CHARS ? `${plain.slice(0, MAX_TITLE_CHARS - 3)}...` : plain;
}

/** URL-safe slug of the title, with a random suffix so two posts never collide. */
export function slugOf(title: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${base || 'post'}-${randomBytes(3).toString('hex')}`;
}

export function postResponse(p: PostRow, withBody = true) {
  return {
    post_id: p.id,
    id: p.id,
    slug: p.slug,
    title: p.title,
    ...(withBody ? { body: p.body } : {}),
    status: p.status,
    created_at: isoOrNull(p.created_at),
    moderated_at: isoOrNull(p.moderated_at),
  };
}

export async function publishPost(db: Queryable, authorId: string, input: { body: string; title?: string }): Promise<PostRow> {
  const title = titleOf(input.body, input.title);
  const [row] = await db.query<PostRow>(
    `insert into community_posts as p (author_id, slug, title, body) values ($1, $2, $3, $4) returning ${COLUMNS}`,
    [authorId, slugOf(title), title, input.body],
  );
  return row!;
}

/** Approve or reject (a moderator may also reverse an earlier decision: rejecting takes a post down). */
export async function moderatePost(db: Queryable, moderator: Principal, postId: string, decision: Decision, note?: string): Promise<PostRow> {
  requireModerator(moderator);
  const [row] = await db.query<PostRow>(
    `update community_posts p set status = $2, moderated_by = $3, moderated_at = now(), moderation_note = $4 where p.id = $1 returning ${COLUMNS}`,
    [postId, decision === 'approve' ? 'approved' : 'rejected', moderator.userId, note ?? null],
  );
  if (!row) throw notFound('Post not found');
  return row;
}

export async function feed(db: Queryable, options: { limit: number; offset: number }): Promise<{ rows: PostRow[]; total: number }> {
  const [count] = await db.query<{ n: number | string }>("select count(*) as n from community_posts where status = 'approved'");
  const rows = await db.query<PostRow>(
    `select ${COLUMNS}, u.name as author_name from community_posts p join users u on u.id = p.author_id
     where p.status = 'approved' order by p.moderated_at desc, p.id limit ${options.limit} offset ${options.offset}`,
  );
  return { rows, total: Number(count?.n ?? 0) };
}

export async function draftPosts(db: Queryable, limit: number): Promise<PostRow[]> {
  return db.query<PostRow>(`select ${COLUMNS} from community_posts p where p.status = 'draft' order by p.created_at, p.id limit ${limit}`);
}
