import { z } from 'zod';
import { decodeCursor, nextCursor } from '../domain/community/cursor.js';
import { draftPosts, feed, FEED_LIMIT_MAX, moderatePost, postResponse } from '../domain/community/posts.js';
import { draftSkills, publishSkill, requireModerator, skillResponse } from '../domain/community/skills.js';
import { notFound } from '../domain/errors.js';
import { defineRoute, type RouteSpec } from '../http/route.js';
import { int, isoTime } from './schemas.js';
import { skillSchema } from '../domain/community/skillSchema.js';

const UUID = z.string().uuid();
const FeedQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(FEED_LIMIT_MAX).default(20), cursor: z.string().max(100).optional() })
  .strict();
const QueueQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(50) }).strict();
const ModerateBody = z.object({ decision: z.enum(['approve', 'reject']), note: z.string().trim().max(1000).optional() }).strict();

/** postResponse (domain/community/posts.ts). */
const Post = z.object({
  post_id: z.string(),
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  body: z.string(),
  status: z.enum(['draft', 'approved', 'rejected']),
  created_at: isoTime.nullable(),
  moderated_at: isoTime.nullable(),
});
const Skill = skillSchema;

function idParam(value: string | undefined, what: string): string {
  if (!value || !UUID.safeParse(value).success) throw notFound(`${what} not found`);
  return value;
}

/** The community feed (approved posts) and the moderators' operations: post approval and skill publishing (admins only). */
export const communityRoutes: RouteSpec<any, any>[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/community/feed',
    auth: 'key',
    response: z.object({ posts: z.array(Post.extend({ author: z.string().nullable() })), total: int, next_cursor: z.string().nullable() }),
    query: FeedQuery,
    doc: { summary: 'Approved community posts, most recently approved first' },
    async handler({ services, query }) {
      const offset = decodeCursor(query.cursor);
      const { rows, total } = await feed(services.db, { limit: query.limit, offset });
      return {
        body: { posts: rows.map((p) => ({ ...postResponse(p), author: p.author_name ?? null })), total, next_cursor: nextCursor(offset, rows.length, total) },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/community/moderation',
    auth: 'key',
    response: z.object({ posts: z.array(Post), skills: z.array(Skill) }),
    query: QueueQuery,
    doc: { summary: 'Moderation queue: draft posts and draft skills, oldest first (administrators only)' },
    async handler({ services, principal, query }) {
      requireModerator(principal);
      const [posts, skills] = await Promise.all([draftPosts(services.db, query.limit), draftSkills(services.db, query.limit)]);
      return { body: { posts: posts.map((p) => postResponse(p)), skills: skills.map((s) => skillResponse(s, principal.userId, true)) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/community/posts/:post_id/moderate',
    auth: 'key',
    response: Post.extend({ moderation_note: z.string().nullable() }),
    body: ModerateBody,
    doc: { summary: 'Approve (into the feed) or reject a post (administrators only)' },
    async handler({ services, principal, params, body }) {
      requireModerator(principal);
      const post = await moderatePost(services.db, principal, idParam(params.post_id, 'Post'), body.decision, body.note);
      return { body: { ...postResponse(post), moderation_note: post.moderation_note } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/community/skills/:skill_id/publish',
    auth: 'key',
    response: Skill.extend({ changed: z.boolean() }),
    doc: { summary: 'Publish a draft skill to every user (administrators only; its persisted scan verdict must be acceptable)' },
    async handler({ services, principal, params }) {
      requireModerator(principal);
      const { skill, changed } = await publishSkill(services.db, principal, idParam(params.skill_id, 'Skill'));
      return { body: { ...skillResponse(skill, principal.userId, false), changed } };
    },
  }),
];
