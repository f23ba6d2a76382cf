// Spec: "Endpoints > Referrals", with "Other records > Referral".
import { t, type ContractFile } from '../contract.js';

export default {
  area: 'Referrals',
  routes: [
    {
      method: 'POST',
      path: '/v1/referrals/generate',
      spec: 'POST /v1/referrals/generate | -> GenerateReferralResponse; idempotent, same code every call (one stable code per caller)',
      status: 200,
      fields: { code: t.string },
      check: async (res, c) => {
        const again = await c.ok('POST', '/v1/referrals/generate');
        if (again.code !== res.json.code) throw new Error(`a second call gave another code (${res.json.code} then ${again.code})`);
      },
    },
    { method: 'GET', path: '/v1/referrals', spec: 'GET /v1/referrals | -> ReferralListResponse', status: 200, note: 'ReferralListResponse fields are not shown by the spec.' },
    { method: 'GET', path: '/v1/referrals/stats', spec: 'GET /v1/referrals/stats | -> ReferralStatsResponse', status: 200, note: 'ReferralStatsResponse fields are not shown by the spec.' },
    {
      method: 'POST',
      path: '/v1/referrals/claim',
      spec: 'POST /v1/referrals/claim | ClaimReferralRequest -> ClaimReferralResponse; manual fallback; caller authenticates as the referred user',
      request: async (c) => {
        const referrer = await c.user('pro', 'contract-referrer');
        const { code } = await c.ok('POST', '/v1/referrals/generate', undefined, referrer.key);
        const referred = await c.user('free', 'contract-referred');
        return { key: referred.key, body: { code } };
      },
      status: 200,
      note: 'ClaimReferralRequest/Response fields are not shown; the request field code is the generated code.',
    },
  ],
} satisfies ContractFile;
