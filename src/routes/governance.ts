import { z } from 'zod';
import { audit, listAudit, type AuditTarget } from '../domain/audit/audit.js';
import { httpReplyOf } from '../http/errors.js';
import { defineRoute, type Reply, type RequestContext, type RouteSpec } from '../http/route.js';
import { int, isoTime } from './schemas.js';

const OUTCOMES = ['success', 'denied', 'failure'] as const;
const AuditPage = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      actor: z.object({ user_id: z.string().nullable(), key_id: z.string().nullable(), via: z.string() }),
      action: z.string(),
      target: z.object({ type: z.string().nullable(), id: z.string().nullable() }),
      outcome: z.enum(OUTCOMES),
      detail: z.record(z.string(), z.unknown()),
      request_id: z.string().nullable(),
      created_at: isoTime,
    }),
  ),
  page: int,
  page_size: int,
  total: int,
  has_more: z.boolean(),
});

const AuditQuery = z
  .object({
    page: z.coerce.number().int().min(1).default(1),
    page_size: z.coerce.number().int().min(1).max(100).default(50),
    action: z.string().min(1).max(64).optional(),
    outcome: z.enum(OUTCOMES).optional(),
    since: z.string().datetime({ offset: true }).transform((s) => new Date(s)).optional(),
    until: z.string().datetime({ offset: true }).transform((s) => new Date(s)).optional(),
  })
  .strict();

export const governanceRoutes = [
  // The caller's own audit trail, newest first, paginated.
  defineRoute({
    method: 'GET',
    path: '/v1/governance/audit',
    auth: 'key',
    query: AuditQuery,
    response: AuditPage,
    async handler({ services, principal, query }) {
      const { items, total } = await listAudit(services.db, {
        ownerId: principal.userId,
        page: query.page,
        pageSize: query.page_size,
        action: query.action,
        outcome: query.outcome,
        since: query.since,
        until: query.until,
      });
      return {
        body: {
          items: items.map((r) => ({
            id: r.id,
            actor: { user_id: r.actor_user_id, key_id: r.actor_key_id, via: r.actor_via },
            action: r.action,
            target: { type: r.target_type, id: r.target_id },
            outcome: r.outcome,
            detail: r.detail,
            request_id: r.request_id,
            created_at: r.created_at,
          })),
          page: query.page,
          page_size: query.page_size,
          total,
          has_more: query.page * query.page_size < total,
        },
      };
    },
  }),
];

// ---------------------------------------------------------------------------------------------
// Auditing other areas' routes without touching their files: wrap the route list once
// (src/routes/index.ts: `export const allRoutes = withAudit([...])`). Each listed route appends
// one audit row after its handler: success with the target from the reply, or denied (4xx) /
// failure (5xx) when it throws. Requests rejected before the handler (401, plan 403, 422) are not
// audited. Targets are ids only, never a secret (confirm tokens are identified by their key).
// ---------------------------------------------------------------------------------------------

type AnyCtx = RequestContext<any, any>;
type TargetFn = (ctx: AnyCtx, reply: Reply | null) => AuditTarget;

const replyField = (field: string) => (reply: Reply | null) => {
  const value = (reply?.body as Record<string, unknown> | undefined)?.[field];
  return value === undefined || value === null ? null : String(value);
};
const param = (name: string): TargetFn => (ctx) => ({ type: name.replace(/_id$/, ''), id: ctx.params[name] ?? null });

export const AUDITED_ROUTES: Record<string, { action: string; target: TargetFn; detail?: (ctx: AnyCtx, reply: Reply | null) => Record<string, unknown> }> = {
  'POST /v1/keys': { action: 'key.create', target: (_c, r) => ({ type: 'api_key', id: replyField('key_id')(r) }), detail: (c) => ({ environment: c.body?.environment, project_id: c.body?.project_id ?? null }) },
  'PATCH /v1/keys/:key_id': { action: 'key.update', target: (c) => ({ type: 'api_key', id: c.params.key_id }), detail: (c) => ({ fields: Object.keys(c.body ?? {}) }) },
  'DELETE /v1/keys/:key_id': { action: 'key.revoke', target: (c) => ({ type: 'api_key', id: c.params.key_id }) },
  'POST /v1/keys/:key_id/rotate': { action: 'key.rotate', target: (c) => ({ type: 'api_key', id: c.params.key_id }), detail: (_c, r) => ({ successor_key_id: replyField('key_id')(r) }) },
  'POST /v1/keys/:key_id/confirm-tokens': { action: 'key.confirm_token.create', target: (c) => ({ type: 'api_key', id: c.params.key_id }), detail: (c) => ({ operation: c.body?.operation }) },
  'POST /v1/keys/confirm/:token_hash': { action: 'key.confirm', target: (_c, r) => ({ type: 'api_key', id: replyField('key_id')(r) }), detail: (_c, r) => ({ operation: replyField('operation')(r) }) },
  'POST /v1/projects': { action: 'project.create', target: (_c, r) => ({ type: 'project', id: replyField('project_id')(r) }) },
  'PUT /v1/projects/:project_id': { action: 'project.update', target: param('project_id'), detail: (c) => ({ fields: Object.keys(c.body ?? {}) }) },
  'DELETE /v1/projects/:project_id': { action: 'project.delete', target: param('project_id') },
  'POST /v1/profiles': { action: 'profile.create', target: (_c, r) => ({ type: 'profile', id: replyField('id')(r) }) },
  'PUT /v1/profiles/:profile_id': { action: 'profile.update', target: param('profile_id') },
  'DELETE /v1/profiles/:profile_id': { action: 'profile.delete', target: param('profile_id') },
};

export function auditRoute<B, Q>(route: RouteSpec<B, Q>, action: string, target: TargetFn, detail?: (ctx: AnyCtx, reply: Reply | null) => Record<string, unknown>): RouteSpec<B, Q> {
  return {
    ...route,
    async handler(ctx) {
      try {
        const reply = await route.handler(ctx);
        await audit(ctx.services, ctx.principal ?? null, action, target(ctx, reply), 'success', { requestId: ctx.requestId, detail: detail?.(ctx, reply) });
        return reply;
      } catch (err) {
        const status = httpReplyOf(err)?.status ?? 500;
        await audit(ctx.services, ctx.principal ?? null, action, target(ctx, null), status < 500 ? 'denied' : 'failure', {
          requestId: ctx.requestId,
          detail: { status },
        });
        throw err;
      }
    },
  };
}

/** Wraps every route listed in AUDITED_ROUTES; others pass through unchanged. */
export function withAudit(routes: RouteSpec<any, any>[]): RouteSpec<any, any>[] {
  return routes.map((r) => {
    const entry = AUDITED_ROUTES[`${r.method} ${r.path}`];
    return entry ? auditRoute(r, entry.action, entry.target, entry.detail) : r;
  });
}
