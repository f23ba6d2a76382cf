import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import { PLANS } from '../auth/plans.js';
import { MCP_SCOPES } from '../auth/scopes.js';
import {
  createApiKey,
  getApiKey,
  keyListItem,
  grantKeyScope,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  projectForKey,
  updateApiKey,
  type RotateOutcome,
} from '../domain/identity/apiKeys.js';
import { consumeConfirmToken, createConfirmToken, findConfirmToken, type ConfirmTokenRow } from '../domain/identity/confirmTokens.js';
import { requireOwnedProject } from '../domain/identity/projects.js';
import { getUser } from '../domain/identity/users.js';
import { conflict, forbidden, gone, invalid, notFound } from '../domain/errors.js';
import { defineRoute } from '../http/route.js';
import type { Queryable } from '../store/db.js';
import { INT_COLUMN_MAX, modelName } from './schemas.js';


const projectId = z.string().uuid();

/** keyListItem as a response schema (dates as ISO strings); the secret `key` only in the creation's answer. */
const when = z.string();
const KeyItem = z.object({
  key_id: z.string(),
  name: z.string(),
  key_prefix: z.string(),
  plan: z.enum(PLANS),
  environment: z.string(),
  status: z.enum(['active', 'revoked']),
  default_model: z.string().nullable(),
  monthly_quota: z.number().int().nullable(),
  enforce_quota: z.boolean(),
  quota_alert_state: z.enum(['none', 'warning', 'exceeded']),
  quota_period_start: when,
  project_id: z.string().nullable(),
  scopes: z.array(z.string()),
  replaces_key_id: z.string().nullable(),
  replaced_by_key_id: z.string().nullable(),
  expires_at: when.nullable(),
  revoked_at: when.nullable(),
  last_used_at: when.nullable(),
  created_at: when,
});
const RevokedKey = z.object({ key_id: z.string(), status: z.literal('revoked'), revoked_at: when });
/** A rotation's answer: the successor with its secret, and the predecessor (now expiring). */
const RotatedKey = KeyItem.extend({ key: z.string(), predecessor: KeyItem });
const OPERATIONS = ['rotate', 'revoke', 'scope_grant'] as const;
const Confirmed = z.object({
  token_id: z.string(),
  operation: z.enum(OPERATIONS),
  key_id: z.string(),
  status: z.literal('confirmed'),
  consumed_at: when,
  result: z.union([RotatedKey, KeyItem, RevokedKey]).describe('rotate: the successor key; scope_grant: the key; revoke: the revoked key'),
});
const ConfirmToken = z.object({ token_id: z.string(), token: z.string(), confirm_path: z.string(), operation: z.enum(OPERATIONS), key_id: z.string(), expires_at: when });

const CreateKeyBody = z
  .object({
    name: z.string().max(100).default(''),
    environment: z.string().min(1).max(16).default('production'),
    default_model: modelName.nullish(),
    monthly_quota: z.number().int().positive().max(INT_COLUMN_MAX).nullish(),
    enforce_quota: z.boolean().default(false),
    expires_in_days: z.number().int().min(1).max(365).nullish(),
    project_id: projectId.nullish(),
  })
  .prefault({});

// UpdateKeyRequest: only present fields change; monthly_quota null clears the cap.
const UpdateKeyBody = z
  .object({
    name: z.string().max(100).optional(),
    default_model: modelName.nullable().optional(),
    monthly_quota: z.number().int().positive().max(INT_COLUMN_MAX).nullable().optional(),
    enforce_quota: z.boolean().optional(),
    project_id: projectId.nullable().optional(),
  })
  .strict();

const RotateKeyBody = z
  .object({
    grace_period_days: z.number().int().min(0).max(90).default(7),
    name: z.string().max(100).nullish(),
  })
  .strict()
  .prefault({});


const ConfirmTokenBody = z
  .object({
    operation: z.enum(OPERATIONS),
    grace_period_days: z.number().int().min(0).max(90).optional(),
    scope: z.enum(MCP_SCOPES).optional(),
    expires_in_seconds: z.number().int().min(60).max(86_400).default(900),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.operation === 'scope_grant' && !body.scope) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['scope'], message: 'scope is required for operation scope_grant' });
    }
  });

const keyNotFound = (keyId: string) => notFound(`API key '${keyId}' not found`);

/** The caller's current plan (the user row), which a new or successor key takes. */
async function currentUser(db: Queryable, principal: Principal) {
  const user = await getUser(db, principal.userId);
  if (!user) throw notFound('User not found');
  return user;
}

function rotationReply(keyId: string, outcome: RotateOutcome) {
  if (outcome.kind === 'not-found') throw keyNotFound(keyId);
  if (outcome.kind === 'revoked') throw invalid(`API key '${keyId}' is revoked and cannot be rotated`);
  if (outcome.kind === 'already-rotated') {
    throw conflict(`API key '${keyId}' was already rotated; its successor is '${outcome.successorId}'`);
  }
  return {
    ...keyListItem(outcome.successor),
    key: outcome.key,
    predecessor: keyListItem(outcome.predecessor),
  };
}

async function rotate(db: Queryable, principal: Principal, keyId: string, graceDays: number, name?: string | null) {
  const user = await currentUser(db, principal);
  return rotateApiKey(db, { userId: user.id, keyId, plan: user.plan, graceDays, name });
}

/** Runs a consumed token's operation inside the consuming transaction (a failure un-consumes it). */
async function runConfirmedOperation(tx: Queryable, principal: Principal, token: ConfirmTokenRow) {
  switch (token.operation) {
    case 'revoke': {
      const outcome = await revokeApiKey(tx, principal.userId, token.key_id);
      if (outcome.kind === 'not-found') throw keyNotFound(token.key_id);
      if (outcome.kind === 'already-revoked') throw invalid(`API key '${token.key_id}' is already revoked`);
      return { key_id: outcome.row.key_id, status: outcome.row.status, revoked_at: outcome.row.revoked_at };
    }
    case 'rotate': {
      const grace = typeof token.params.grace_period_days === 'number' ? token.params.grace_period_days : 7;
      return rotationReply(token.key_id, await rotate(tx, principal, token.key_id, grace));
    }
    case 'scope_grant': {
      const row = await grantKeyScope(tx, principal.userId, token.key_id, String(token.params.scope));
      if (!row) throw keyNotFound(token.key_id);
      return keyListItem(row);
    }
  }
}

export const keyRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/keys',
    auth: 'key',
    response: z.object({ keys: z.array(KeyItem), total: z.number().int() }),
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
    response: KeyItem.extend({ key: z.string() }),
    doc: { status: 201 },
    async handler({ body, principal, services }) {
      const user = await currentUser(services.db, principal);
      const projectId = projectForKey(principal, body.project_id);
      if (projectId) await requireOwnedProject(services.db, user.id, projectId);
      const { key, row } = await createApiKey(services.db, {
        userId: user.id,
        name: body.name,
        plan: user.plan,
        environment: body.environment,
        defaultModel: body.default_model ?? null,
        monthlyQuota: body.monthly_quota ?? null,
        enforceQuota: body.enforce_quota,
        projectId: projectId ?? null,
        expiresAt: body.expires_in_days ? new Date(Date.now() + body.expires_in_days * 86_400_000) : null,
      });
      return { status: 201, body: { ...keyListItem(row), key } };
    },
  }),
  // Registered before the /:key_id routes so 'confirm' is never read as a key id.
  defineRoute({
    method: 'POST',
    path: '/v1/keys/confirm/:token_hash',
    auth: 'key',
    response: Confirmed,
    async handler({ params, principal, services }) {
      if (principal.via !== 'jwt') {
        throw forbidden('Confirm tokens can only be confirmed in an identity-provider session, not with an API key');
      }
      const token = params.token_hash!;
      const found = await findConfirmToken(services.db, token);
      if (!found) throw notFound('Confirm token not found');
      if (found.expired) throw gone('Confirm token expired');
      if (found.consumed_at) throw conflict('Confirm token already consumed');
      if (found.user_id !== principal.userId) throw forbidden('Confirm token belongs to another user');
      const { row, result } = await services.db.transaction(async (tx) => {
        const consumed = await consumeConfirmToken(tx, found.id, principal.userId);
        // Lost the race to a concurrent confirm (or expired just now).
        if (!consumed) throw conflict('Confirm token already consumed');
        return { row: consumed, result: await runConfirmedOperation(tx, principal, consumed) };
      });
      // Drop cached authentications of the affected key on every instance.
      if (row.operation !== 'scope_grant') await services.revocations.publish(row.key_id);
      return {
        body: {
          token_id: row.id,
          operation: row.operation,
          key_id: row.key_id,
          status: 'confirmed',
          consumed_at: row.consumed_at,
          result,
        },
      };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/keys/:key_id',
    auth: 'key',
    response: KeyItem,
    body: UpdateKeyBody,
    async handler({ body, params, principal, services }) {
      const keyId = params.key_id!;
      if (!(await getApiKey(services.db, principal.userId, keyId))) throw keyNotFound(keyId);
      if (body.project_id !== undefined) projectForKey(principal, body.project_id);
      if (body.project_id) await requireOwnedProject(services.db, principal.userId, body.project_id);
      const row = await updateApiKey(services.db, principal.userId, keyId, {
        name: body.name,
        defaultModel: body.default_model,
        monthlyQuota: body.monthly_quota,
        enforceQuota: body.enforce_quota,
        projectId: body.project_id,
      });
      if (!row) throw keyNotFound(keyId);
      // The cached principal carries the project binding.
      // Cached principals carry the binding and the quota: drop them on every instance.
      if (body.project_id !== undefined || body.monthly_quota !== undefined) await services.revocations.publish(keyId);
      return { body: keyListItem(row) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/keys/:key_id',
    auth: 'key',
    response: RevokedKey,
    async handler({ params, principal, services }) {
      const outcome = await revokeApiKey(services.db, principal.userId, params.key_id!);
      if (outcome.kind === 'not-found') throw keyNotFound(params.key_id!);
      if (outcome.kind === 'already-revoked') throw invalid(`API key '${params.key_id}' is already revoked`);
      await services.revocations.publish(outcome.row.key_id);
      return { body: { key_id: outcome.row.key_id, status: outcome.row.status, revoked_at: outcome.row.revoked_at } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/keys/:key_id/rotate',
    auth: 'key',
    response: RotatedKey,
    doc: { status: 201 },
    body: RotateKeyBody,
    async handler({ body, params, principal, services }) {
      const keyId = params.key_id!;
      const outcome = await services.db.transaction((tx) => rotate(tx, principal, keyId, body.grace_period_days, body.name));
      const reply = rotationReply(keyId, outcome);
      // Cached entries of the predecessor hold its old expiry: drop them everywhere.
      await services.revocations.publish(keyId);
      return { status: 201, body: reply };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/keys/:key_id/confirm-tokens',
    auth: 'key',
    response: ConfirmToken,
    doc: { status: 201 },
    body: ConfirmTokenBody,
    async handler({ body, params, principal, services }) {
      const keyId = params.key_id!;
      if (!(await getApiKey(services.db, principal.userId, keyId))) throw keyNotFound(keyId);
      const operationParams: Record<string, unknown> = {};
      if (body.operation === 'rotate') operationParams.grace_period_days = body.grace_period_days ?? 7;
      if (body.operation === 'scope_grant') operationParams.scope = body.scope;
      const { token, row } = await createConfirmToken(services.db, {
        userId: principal.userId,
        keyId,
        operation: body.operation,
        params: operationParams,
        ttlSeconds: body.expires_in_seconds,
      });
      return {
        status: 201,
        body: {
          token_id: row.id,
          token,
          confirm_path: `/v1/keys/confirm/${token}`,
          operation: row.operation,
          key_id: row.key_id,
          expires_at: row.expires_at,
        },
      };
    },
  }),
];
