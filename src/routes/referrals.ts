import { z } from 'zod';
import { audit } from '../domain/audit/audit.js';
import { claimReferral, existingCode, listReferrals, referralCode, referralStats } from '../domain/commerce/referrals.js';
import { conflict, invalid, notFound } from '../domain/errors.js';
import { defineRoute } from '../http/route.js';
import { PLANS } from '../auth/plans.js';
import { int, isoTime } from './schemas.js';

const Referral = z.object({ id: z.string(), referred_user_id: z.string(), referred_plan: z.enum(PLANS), source: z.enum(['manual', 'webhook']), created_at: isoTime });
const Stats = z.object({
  code: z.string().nullable(),
  total_referrals: int,
  converted_referrals: int,
  claimed_via_signup: int,
  claimed_manually: int,
  last_referral_at: isoTime.nullable(),
});

const ClaimBody = z.object({ code: z.string().min(1).max(64) }).strict();

export const referralRoutes = [
  // GenerateReferralResponse: the caller's one stable code (200 every time; created says whether this call made it).
  defineRoute({
    method: 'POST',
    path: '/v1/referrals/generate',
    auth: 'key',
    response: z.object({ code: z.string(), created_at: isoTime, created: z.boolean() }),
    async handler({ services, principal, requestId }) {
      const result = await referralCode(services.db, principal.userId);
      await audit(services, principal, 'referral.generate', { type: 'referral_code', id: result.code }, 'success', {
        requestId,
        detail: { created: result.created },
      });
      return { body: { code: result.code, created_at: result.created_at, created: result.created } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/referrals',
    auth: 'key',
    response: z.object({ code: z.string().nullable(), referrals: z.array(Referral), count: int }),
    async handler({ services, principal }) {
      const [code, rows] = await Promise.all([existingCode(services.db, principal.userId), listReferrals(services.db, principal.userId)]);
      return { body: { code, referrals: rows, count: rows.length } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/referrals/stats',
    auth: 'key',
    response: Stats,
    async handler({ services, principal }) {
      const [code, stats] = await Promise.all([existingCode(services.db, principal.userId), referralStats(services.db, principal.userId)]);
      return {
        body: {
          code,
          total_referrals: stats.total,
          converted_referrals: stats.converted,
          claimed_via_signup: stats.via_webhook,
          claimed_manually: stats.total - stats.via_webhook,
          last_referral_at: stats.last,
        },
      };
    },
  }),
  // ClaimReferralRequest -> ClaimReferralResponse: the referred user claims (manual fallback to signup claiming).
  defineRoute({
    method: 'POST',
    path: '/v1/referrals/claim',
    auth: 'key',
    response: z.object({ claimed: z.literal(true), referral_id: z.string(), code: z.string(), claimed_at: isoTime }),
    body: ClaimBody,
    async handler({ services, principal, body, requestId }) {
      const outcome = await claimReferral(services.db, principal.userId, body.code, 'manual');
      const target = { type: 'referral', id: outcome.kind === 'claimed' ? outcome.referral.id : null };
      if (outcome.kind !== 'claimed') {
        await audit(services, principal, 'referral.claim', target, 'denied', { requestId, detail: { reason: outcome.kind } });
        if (outcome.kind === 'unknown-code') throw notFound('Referral code not found');
        if (outcome.kind === 'self-referral') throw invalid('You cannot claim your own referral code');
        throw conflict('A referral has already been claimed for this account');
      }
      await audit(services, principal, 'referral.claim', target, 'success', { requestId, detail: { code: outcome.referral.code } });
      return {
        body: { claimed: true, referral_id: outcome.referral.id, code: outcome.referral.code, claimed_at: outcome.referral.created_at },
      };
    },
  }),
];
