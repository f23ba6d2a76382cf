// Spec: "Endpoints > API keys", with the fields of "Resources and their fields > API key".
import { t, type ContractContext, type ContractFile, type Fields } from '../contract.js';

const KEY_VALUE = /^gc_[0-9a-f]{32}$/;
const PLANS = ['free', 'pro', 'team', 'enterprise'] as const;

/** "API key" resource fields (types where the spec gives them; mutable strings otherwise). */
export const KEY_RECORD: Fields = {
  key_id: t.string, // "string; path parameter; filter form has max length 32"
  name: t.string, // "mutable string"
  default_model: t.nullable(t.string), // "mutable"
  monthly_quota: t.nullable(t.integer), // "integer or null; null clears the quota"
  quota_alert_state: t.string, // "resets to none when quota is cleared or changed"
  quota_period_start: t.nullable(t.timestamp), // "reset to the current time on any monthly_quota change"
  enforce_quota: t.boolean, // "inherited by a rotation successor"
  environment: t.string, // "filter max length 16"
  plan: t.enum(...PLANS), // "from the caller's current plan at creation/rotation"
  status: t.string, // "revoked after revocation"
  expires_at: t.nullable(t.timestamp), // "enforced at authentication"
  replaces_key_id: t.nullable(t.string), // "link a rotation pair"
  replaced_by_key_id: t.nullable(t.string),
};

const prefixed = (prefix: string, fields: Fields): Fields => Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${prefix}${k}`, v]));

async function freshKey(c: ContractContext, name: string): Promise<string> {
  return (await c.ok('POST', '/v1/keys', { name, environment: 'staging', monthly_quota: 1000 })).key_id;
}

export default {
  area: 'API keys',
  routes: [
    {
      method: 'GET',
      path: '/v1/keys',
      spec: "GET /v1/keys -> ListKeysResponse | lists caller's keys from the database",
      status: 200,
      note: 'The list container is not named by the spec; its items are KeyListItem (the API key record).',
      fields: prefixed('keys[].', KEY_RECORD),
    },
    {
      method: 'POST',
      path: '/v1/keys',
      spec: 'POST /v1/keys | CreateKeyRequest -> CreateKeyResponse | 201; full key returned once (format gc_ followed by 32 random hex characters)',
      request: { body: { name: 'contract-created', environment: 'dev', monthly_quota: 500 } },
      status: 201,
      fields: { ...KEY_RECORD, key: t.pattern(KEY_VALUE), plan: t.const('enterprise'), monthly_quota: t.const(500) },
    },
    {
      method: 'PATCH',
      path: '/v1/keys/:key_id',
      spec: 'PATCH /v1/keys/{key_id} | UpdateKeyRequest -> KeyListItem | 200; name, default_model, monthly_quota (null clears the quota)',
      request: async (c) => ({ params: { key_id: await freshKey(c, 'contract-patch') }, body: { name: 'contract-patched', default_model: 'gpt-4o', monthly_quota: null } }),
      status: 200,
      // quota_alert_state "resets to none when quota is cleared or changed".
      fields: { ...KEY_RECORD, name: t.const('contract-patched'), monthly_quota: t.null, quota_alert_state: t.const('none') },
    },
    {
      method: 'DELETE',
      path: '/v1/keys/:key_id',
      spec: 'DELETE /v1/keys/{key_id} | -> RevokeKeyResponse | 200; 400 if already revoked; 404 unknown key (status: revoked after revocation)',
      request: async (c) => ({ params: { key_id: await freshKey(c, 'contract-revoke') } }),
      status: 200,
      fields: { key_id: t.string, status: t.const('revoked') },
      check: async (res, c) => {
        const again = await c.server.request('DELETE', `/v1/keys/${res.json.key_id}`);
        if (again.status !== 400) throw new Error(`revoking again answered ${again.status}; spec: 400 (already revoked)`);
      },
    },
    {
      method: 'POST',
      path: '/v1/keys/:key_id/rotate',
      spec: "POST /v1/keys/{key_id}/rotate | RotateKeyRequest (includes grace_period_days) -> RotateKeyResponse | 201; successor inherits environment, default_model, enforce_quota, monthly_quota; successor plan from caller's current plan; plaintext successor returned once; replaces_key_id / replaced_by_key_id link a rotation pair",
      request: async (c) => ({ params: { key_id: await freshKey(c, 'contract-rotate') }, body: { grace_period_days: 2 } }),
      status: 201,
      fields: { ...KEY_RECORD, key: t.pattern(KEY_VALUE), replaces_key_id: t.string, environment: t.const('staging'), monthly_quota: t.const(1000), plan: t.const('enterprise') },
      check: (res, _c, req) => {
        if (res.json.replaces_key_id !== req.params!.key_id) throw new Error(`replaces_key_id ${res.json.replaces_key_id} should name the rotated key ${req.params!.key_id}`);
      },
    },
    {
      method: 'POST',
      path: '/v1/keys/confirm/:token_hash',
      spec: 'POST /v1/keys/confirm/{token_hash} | no body -> ConfirmTokenResponse | 200; identity-provider session only (not an API key); confirm token operation is one of rotate, revoke, scope_grant',
      // An identity-provider session (a JWT from the suite's local provider) confirms a token issued for its own key.
      request: async (c) => {
        const jwt = await c.jwt('contract-confirm-user', { plan: 'pro' });
        const session = { key: null, headers: { authorization: `Bearer ${jwt}` } };
        const key = await c.server.request('POST', '/v1/keys', { ...session, body: { name: 'contract-confirm' } });
        if (key.status !== 201) throw new Error(`fixture: key in an identity-provider session answered ${key.status}: ${key.text}`);
        const token = await c.server.request('POST', `/v1/keys/${key.json.key_id}/confirm-tokens`, { ...session, body: { operation: 'revoke' } });
        if (token.status !== 201) throw new Error(`fixture: confirm token answered ${token.status}: ${token.text}`);
        return { ...session, params: { token_hash: token.json.token } };
      },
      status: 200,
      note: 'ConfirmTokenResponse fields are not shown; the confirm token record names operation and consumed_at.',
      fields: { operation: t.enum('rotate', 'revoke', 'scope_grant'), consumed_at: t.timestamp },
    },
  ],
} satisfies ContractFile;
