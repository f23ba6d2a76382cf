import { z } from 'zod';
import { MINT_MAX_EXPIRY_DAYS, mintApiKey, projectForKey, rebindApiKey, revokeApiKeyStrict, type StrictKeyOutcome } from '../../../domain/identity/apiKeys.js';
import { keyListItem } from '../../../domain/identity/apiKeys.js';
import { DomainError, invalid, notFound } from '../../../domain/errors.js';
import { defineTool } from '../../tool.js';
import { int, when } from '../outputs.js';

/** keyListItem as a result (the secret key only when minted). */
const keyItem = z.looseObject({
  key_id: z.string(),
  name: z.string(),
  key_prefix: z.string(),
  plan: z.string(),
  environment: z.string(),
  status: z.string(),
  monthly_quota: int.nullable(),
  project_id: z.string().nullable(),
  scopes: z.array(z.string()),
  expires_at: when.nullable(),
  revoked_at: when.nullable(),
  created_at: when,
});

/** Maps a key operation's outcome to a tool result; another user's key is the spec's 403. */
function keyOutcome(outcome: StrictKeyOutcome, keyId: string) {
  switch (outcome.kind) {
    case 'ok':
      return keyListItem(outcome.row);
    case 'forbidden':
      throw new DomainError('forbidden', `API key '${keyId}' belongs to another user`, { extra: { status: 403 } });
    case 'already-revoked':
      throw invalid(`API key '${keyId}' is already revoked`, { code: 'already_revoked', extra: { status: 400 } });
    case 'project-not-found':
      throw notFound('Project not found');
    case 'not-found':
      throw notFound(`API key '${keyId}' not found`);
  }
}

export const keyTools = [
  defineTool({
    name: 'gc_mint_api_key',
    scope: 'mcp:write',
    advisory: true,
    description: 'Mints an API key on your current plan; expires in 30 days unless expires_in_days (1-365) says otherwise. The key is returned once.',
    input: z
      .object({
        name: z.string().max(100).optional(),
        expires_in_days: z.number().int().min(1).max(MINT_MAX_EXPIRY_DAYS).optional(),
        environment: z.string().min(1).max(16).optional(),
      })
      .strict(),
    output: keyItem.extend({ key: z.string() }),
    async handler(args, { services, principal }) {
      const { key, row } = await mintApiKey(services.db, principal, { name: args.name, expiresInDays: args.expires_in_days ?? null, environment: args.environment });
      return { result: { ...keyListItem(row), key } };
    },
  }),
  defineTool({
    name: 'gc_revoke_api_key',
    scope: 'mcp:write',
    advisory: true,
    description: 'Revokes one of your API keys; every instance rejects it within seconds. Another user\'s key is refused (403).',
    output: keyItem,
    input: z.object({ key_id: z.string().min(1).max(32) }).strict(),
    async handler({ key_id }, { services, principal }) {
      const result = keyOutcome(await revokeApiKeyStrict(services.db, principal.userId, key_id), key_id);
      await services.revocations.publish(key_id);
      return { result };
    },
  }),
  defineTool({
    name: 'gc_rebind_api_key',
    scope: 'mcp:write',
    advisory: true,
    description: 'Binds one of your API keys to one of your projects, or unbinds it (project_id null = Default). Another user\'s key is refused (403).',
    output: keyItem,
    input: z.object({ key_id: z.string().min(1).max(32), project_id: z.string().uuid().nullable() }).strict(),
    async handler({ key_id, project_id }, { services, principal }) {
      projectForKey(principal, project_id);
      const result = keyOutcome(await rebindApiKey(services.db, principal.userId, key_id, project_id), key_id);
      // Cached principals carry the old binding.
      await services.revocations.publish(key_id);
      return { result };
    },
  }),
];
