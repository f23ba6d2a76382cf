import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyRow } from '../domain/apiKeys.js';
import { getUser } from '../domain/users.js';
import { badRequest, notFound } from '../http/errors.js';
import { defineRoute } from '../http/route.js';

/** KeyListItem: everything about a key except its secret. */
export function keyListItem(row: ApiKeyRow) {
  return {
    key_id: row.key_id,
    name: row.name,
    key_prefix: row.key_prefix,
    plan: row.plan,
    environment: row.environment,
    status: row.status,
    default_model: row.default_model,
    monthly_quota: row.monthly_quota,
    enforce_quota: row.enforce_quota,
    quota_alert_state: row.quota_alert_state,
    quota_period_start: row.quota_period_start,
    project_id: row.project_id,
    replaces_key_id: row.replaces_key_id,
    replaced_by_key_id: row.replaced_by_key_id,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
    created_at: row.created_at,
  };
}

const CreateKeyBody = z
  .object({
    name: z.string().max(100).default(''),
    environment: z.string().min(1).max(16).default('production'),
    default_model: z.string().max(100).nullish(),
    monthly_quota: z.number().int().positive().nullish(),
    enforce_quota: z.boolean().default(false),
    expires_in_days: z.number().int().min(1).max(365).nullish(),
  })
  .default({});

export const keyRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/keys',
    auth: 'key',
    async handler({ principal, services }) {
      const rows = await listApiKeys(services.db, principal.userId);
      return { body: { keys: rows.map(keyListItem), total: rows.length } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/keys',
    auth: 'key',
    body: CreateKeyBody,
    async handler({ body, principal, services }) {
      const user = await getUser(services.db, principal.userId);
      if (!user) throw notFound('User not found');
      const { key, row } = await createApiKey(services.db, {
        userId: user.id,
        name: body.name,
        plan: user.plan,
        environment: body.environment,
        defaultModel: body.default_model ?? null,
        monthlyQuota: body.monthly_quota ?? null,
        enforceQuota: body.enforce_quota,
        expiresAt: body.expires_in_days ? new Date(Date.now() + body.expires_in_days * 86_400_000) : null,
      });
      return { status: 201, body: { ...keyListItem(row), key } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/keys/:key_id',
    auth: 'key',
    async handler({ params, principal, services }) {
      const outcome = await revokeApiKey(services.db, principal.userId, params.key_id!);
      if (outcome.kind === 'not-found') throw notFound(`API key '${params.key_id}' not found`);
      if (outcome.kind === 'already-revoked') throw badRequest(`API key '${params.key_id}' is already revoked`);
      await services.revocations.publish(outcome.row.key_id);
      return { body: { key_id: outcome.row.key_id, status: outcome.row.status, revoked_at: outcome.row.revoked_at } };
    },
  }),
];
