// Routes the spec does not describe: each says why it exists (outsideSpec). They are still called
// with a valid request and checked for status and JSON shape. Protocol bindings defined by another
// standard get a file of their own (e.g. a2a-protocol.ts for the A2A protocol operations).
import { createHash } from 'node:crypto';
import { signSvix } from '../../../src/providers/identityWebhook.js';
import { signStripePayload } from '../../../src/providers/stripe.js';
import { t, type ContractFile } from '../contract.js';

export default {
  area: 'Outside the spec',
  routes: [
    {
      method: 'POST',
      path: '/v1/keys/:key_id/confirm-tokens',
      spec: 'Confirm token: single-use; identified by token_hash; has expiry, consumed_at and an owning user; operation is one of rotate, revoke, scope_grant',
      outsideSpec: 'Issues the confirm tokens that POST /v1/keys/confirm/{token_hash} consumes; the spec describes the token, not where it is issued (docs/accounts.md).',
      request: async (c) => ({ params: { key_id: (await c.ok('POST', '/v1/keys', { name: 'contract-confirm-token' })).key_id }, body: { operation: 'rotate', grace_period_days: 1 } }),
      status: 201,
    },
    {
      method: 'PUT',
      path: '/v1/projects/:project_id/knowledge/uploads/:upload_id/content',
      spec: 'Upload: UUID upload_id; idempotency_key; signed upload URL',
      outsideSpec: 'The signed upload URL that IssueUploadResponse hands out (public, authorised by its signature); the spec names the URL, not its route (docs/knowledge-hub.md).',
      request: async (c) => {
        const issued = await c.ok('POST', `/v1/projects/${c.fx.project_id}/knowledge/uploads`, { idempotency_key: 'contract-upload-put', name: 'put.md' });
        const url = new URL(issued.upload_url);
        const query = Object.fromEntries(url.searchParams);
        return { key: null, params: { project_id: c.fx.project_id, upload_id: issued.upload_id }, query, body: { content: '# Uploaded\n\nBody of an uploaded document.' } };
      },
      status: 200,
    },
    {
      method: 'GET',
      path: '/benchmarks/:benchmark_id',
      spec: 'gc_submit_benchmark: submits an inference benchmark run …; published immediately with a public URL',
      outsideSpec: "The public URL gc_submit_benchmark publishes a run at; the spec names the URL, not its route (docs/mcp-tools.md).",
      request: async (c) => {
        const run = await c.tool('gc_submit_benchmark', { model: 'llama-3.1-8b', quantization: 'Q4_K_M', hardware: 'contract runner', tokens_per_second: 41.5 });
        return { key: null, params: { benchmark_id: run.benchmark_id ?? run.id ?? new URL(run.public_url).pathname.split('/').pop() } };
      },
      status: 200,
    },
    {
      method: 'POST',
      path: '/v1/webhooks/billing',
      spec: 'Events: not shown (billing provider events are not part of the spec)',
      outsideSpec: "Receiver of the billing provider's signed events (Stripe-Signature); the payload is the provider's (docs/commerce.md).",
      request: (c) => {
        const secret = c.server.app.services.commerce.stripeWebhookSecret;
        if (!secret) throw new Error('fixture: the billing webhook secret is not configured');
        const body = JSON.stringify({ id: `evt_contract_${createHash('sha1').update(String(Date.now())).digest('hex').slice(0, 8)}`, type: 'customer.created', data: { object: { id: 'cus_contract' } } });
        return { key: null, rawBody: body, headers: { 'content-type': 'application/json', 'stripe-signature': signStripePayload(body, secret) } };
      },
      status: 200,
    },
    {
      method: 'POST',
      path: '/v1/webhooks/identity',
      spec: "Also: the identity provider's user.created webhook triggers automatic referral claiming when signup metadata carries a referral code",
      outsideSpec: "Receiver of the identity provider's signed user.created webhook (Svix-style signature); the spec names the event, not the route; the payload is the provider's (docs/commerce.md).",
      request: async (c) => {
        const { code } = await c.ok('POST', '/v1/referrals/generate');
        const body = JSON.stringify({
          type: 'user.created',
          data: { id: 'user_contract_signup', primary_email_address_id: 'idn_1', email_addresses: [{ id: 'idn_1', email_address: 'signup@contract.test' }], unsafe_metadata: { referral_code: code } },
        });
        const id = 'msg_contract_signup';
        const ts = Math.floor(Date.now() / 1000);
        return {
          key: null,
          rawBody: body,
          headers: { 'content-type': 'application/json', 'svix-id': id, 'svix-timestamp': String(ts), 'svix-signature': signSvix(c.identityWebhookSecret, id, ts, body) },
        };
      },
      status: 200,
    },
    {
      method: 'GET',
      path: '/v1/account/settings',
      spec: 'input preview: only the first line, truncated to 100 characters; full input text is never stored',
      outsideSpec: 'The account setting that keeps or drops usage input previews (issue 45; docs/decisions.md "Account privacy settings").',
      status: 200,
      fields: { store_input_previews: t.boolean },
    },
    {
      method: 'PATCH',
      path: '/v1/account/settings',
      spec: 'input preview: only the first line, truncated to 100 characters; full input text is never stored',
      outsideSpec: 'Changes the account setting that keeps or drops usage input previews (issue 45; docs/decisions.md "Account privacy settings").',
      request: { body: { store_input_previews: true } },
      status: 200,
      fields: { store_input_previews: t.boolean },
    },
  ],
} satisfies ContractFile;
