import { z } from 'zod';
import { audit } from '../domain/audit/audit.js';
import { applyStripeEvent, type StripeEvent } from '../domain/commerce/billing.js';
import { claimReferral } from '../domain/commerce/referrals.js';
import { upsertExternalUser } from '../domain/identity/users.js';
import { HttpError } from '../http/errors.js';
import { unavailable } from '../domain/errors.js';
import { defineRoute, type RequestContext } from '../http/route.js';
import { validate } from '../http/validate.js';
import { verifySvix } from '../providers/identityWebhook.js';
import { verifyStripeSignature } from '../providers/stripe.js';
import { applyOnce } from '../domain/platform/webhookEvents.js';

/** The signed bytes: the body exactly as received. */
function signedPayloads(ctx: RequestContext<unknown, unknown>): string[] {
  return ctx.rawBody ? [ctx.rawBody.toString('utf8')] : [];
}

/** Bodies are parsed as plain JSON (key order kept for the signature); the shape is checked after verification. */
function parseAfterVerification<S extends z.ZodTypeAny>(schema: S, value: unknown): z.infer<S> {
  return validate(schema, value, 'body');
}

/** Received: applied or why not (a duplicate delivery is acknowledged, not applied again). */
const BillingAck = z.object({ received: z.literal(true), applied: z.boolean(), duplicate: z.boolean(), reason: z.string().optional() });
/** Received: a duplicate, an ignored event type, or user.created with its referral outcome. */
const IdentityAck = z.union([
  z.object({ received: z.literal(true), duplicate: z.literal(true) }),
  z.object({ received: z.literal(true), ignored: z.string() }),
  z.object({
    received: z.literal(true),
    user_id: z.string(),
    referral: z.union([z.object({ claimed: z.literal(true), referral_id: z.string() }), z.object({ claimed: z.literal(false), reason: z.string() })]),
  }),
]);

const unauthorizedWebhook = (reason: string) => new HttpError(401, `Webhook signature rejected: ${reason}`);

const StripeEventBody = z.object({ id: z.string().min(1), type: z.string().min(1), data: z.object({ object: z.record(z.string(), z.unknown()) }) }).passthrough();

const IdentityEventBody = z
  .object({
    type: z.string().min(1),
    data: z
      .object({
        id: z.string().min(1),
        email_addresses: z.array(z.object({ id: z.string().optional(), email_address: z.string() }).passthrough()).optional(),
        primary_email_address_id: z.string().nullish(),
        first_name: z.string().nullish(),
        last_name: z.string().nullish(),
        unsafe_metadata: z.record(z.string(), z.unknown()).nullish(),
        public_metadata: z.record(z.string(), z.unknown()).nullish(),
      })
      .passthrough(),
  })
  .passthrough();

function referralCodeOf(data: z.infer<typeof IdentityEventBody>['data']): string | null {
  for (const meta of [data.unsafe_metadata, data.public_metadata]) {
    const code = meta?.referral_code ?? meta?.referralCode;
    if (typeof code === 'string' && code.trim()) return code.trim();
  }
  return null;
}

export const webhookRoutes = [
  // Billing provider (Stripe) events: Stripe-Signature t=…,v1=HMAC-SHA256; plan changes update the user's plan.
  defineRoute({
    method: 'POST',
    path: '/v1/webhooks/billing',
    auth: 'public',
    body: z.unknown(),
    response: BillingAck,
    async handler(ctx) {
      const commerce = ctx.services.commerce;
      const secret = commerce.stripeWebhookSecret;
      if (!secret) throw unavailable('Billing webhooks are not configured (STRIPE_WEBHOOK_SECRET)', 60);
      const header = ctx.headers['stripe-signature'];
      const checks = signedPayloads(ctx).map((p) => verifyStripeSignature(p, header, secret));
      const ok = checks.find((c) => c.ok);
      if (!ok) throw unauthorizedWebhook((checks[0] as { reason: string }).reason);
      const event = parseAfterVerification(StripeEventBody, ctx.body);
      const result = await applyStripeEvent(ctx.services, commerce, event as StripeEvent);
      return { body: { received: true, ...result } };
    },
  }),
  // Identity provider (Clerk/Svix-style signature): user.created claims the referral code in signup metadata.
  defineRoute({
    method: 'POST',
    path: '/v1/webhooks/identity',
    auth: 'public',
    body: z.unknown(),
    response: IdentityAck,
    async handler(ctx) {
      const commerce = ctx.services.commerce;
      const secret = commerce.settings.identityWebhookSecret;
      if (!secret) throw unavailable('Identity webhooks are not configured (IDENTITY_WEBHOOK_SECRET)', 60);
      const check = verifySvix(secret, ctx.headers, signedPayloads(ctx));
      if (!check.ok) throw unauthorizedWebhook(check.reason);
      const { services } = ctx;
      const body = parseAfterVerification(IdentityEventBody, ctx.body);
      // A type we do not handle is answered, and its id recorded like any other.
      const once = await applyOnce(services.db, 'identity', check.id, async () =>
        body.type === 'user.created' ? handleUserCreated(ctx, body) : { body: { received: true, ignored: body.type } },
      );
      return once.duplicate ? { body: { received: true, duplicate: true } } : once.value;
    },
  }),
];

/** user.created: create the user row (as a first identity-token login would) and claim the signup referral code. */
async function handleUserCreated(ctx: RequestContext<unknown, unknown>, body: z.infer<typeof IdentityEventBody>) {
  const { services } = ctx;
  const data = body.data;
  const primary = data.email_addresses?.find((e) => e.id && e.id === data.primary_email_address_id) ?? data.email_addresses?.[0];
  const name = [data.first_name, data.last_name].filter(Boolean).join(' ') || null;
  const user = await upsertExternalUser(services.db, { externalId: data.id, plan: null, billingCustomerId: null, email: primary?.email_address ?? null, name });
  const code = referralCodeOf(data);
  let referral: Record<string, unknown> = { claimed: false, reason: 'no referral code in signup metadata' };
  if (code) {
    const outcome = await claimReferral(services.db, user.id, code, 'webhook');
    referral = outcome.kind === 'claimed' ? { claimed: true, referral_id: outcome.referral.id } : { claimed: false, reason: outcome.kind };
    await audit(services, null, 'referral.claim', { type: 'referral', id: outcome.kind === 'claimed' ? outcome.referral.id : null },
      outcome.kind === 'claimed' ? 'success' : 'denied', { ownerId: user.id, requestId: ctx.requestId, detail: { source: 'webhook', result: outcome.kind } });
  }
  return { body: { received: true, user_id: user.id, referral } };
}
