import { z } from 'zod';
import { audit } from '../domain/audit/audit.js';
import { createLead } from '../domain/commerce/leads.js';
import { defineRoute } from '../http/route.js';
import { isoTime } from './schemas.js';

const PLAN_INTERESTS = ['pro', 'team', 'enterprise', 'self_hosted'] as const;

const CreateLeadBody = z
  .object({
    email: z.string().email().max(320),
    name: z.string().min(1).max(200).nullish(),
    company: z.string().min(1).max(200).nullish(),
    message: z.string().max(5000).nullish(),
    plan_interest: z.enum(PLAN_INTERESTS).nullish(),
    source: z.string().max(100).nullish(),
  })
  .strict();

/** LeadResponse: the sales-inbox notification is queued (outbox), not yet sent. */
const Lead = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  company: z.string().nullable(),
  plan_interest: z.enum(PLAN_INTERESTS).nullable(),
  status: z.literal('received'),
  notification: z.literal('queued'),
  created_at: isoTime,
});

export const leadRoutes = [
  // CreateLeadRequest -> LeadResponse (201); the sales-inbox notification goes through the outbox.
  defineRoute({
    method: 'POST',
    path: '/v1/leads',
    auth: 'key',
    response: Lead,
    doc: { status: 201 },
    body: CreateLeadBody,
    async handler({ services, principal, body, requestId }) {
      const commerce = services.commerce;
      const { lead } = await createLead(services.db, principal.userId, body, commerce.settings.salesInbox);
      void commerce.outbox.drainOnce().catch(() => 0);
      await audit(services, principal, 'lead.create', { type: 'lead', id: lead.id }, 'success', { requestId, detail: { plan_interest: lead.plan_interest } });
      return {
        status: 201,
        body: { id: lead.id, email: lead.email, name: lead.name, company: lead.company, plan_interest: lead.plan_interest, status: 'received', notification: 'queued', created_at: lead.created_at },
      };
    },
  }),
];
