import { z } from 'zod';
import { FACILITATORS, reconciliation } from '../domain/commerce/payments.js';
import { defineRoute } from '../http/route.js';
import { int, isoTime } from './schemas.js';

/** ISO-8601 with an explicit UTC designator (Z or +00:00). */
const utcInstant = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]00:?00))?$/, 'must be an ISO-8601 UTC timestamp (e.g. 2026-01-31T00:00:00Z)')
  .transform((s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : s))
  .refine((d) => !Number.isNaN(d.getTime()), 'not a valid date');

const ReconciliationQuery = z
  .object({
    from: utcInstant.optional(),
    to: utcInstant.optional(),
    facilitator: z.enum(FACILITATORS).optional(),
    limit: z.coerce.number().int().min(1).max(5000).default(500),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.from && q.to && q.from > q.to) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['from'], message: 'from must not be after to' });
  });

const DAY = 86_400_000;

const Reconciliation = z.object({
  events: z.array(
    z.object({
      id: z.string(),
      user_id: z.string(),
      project_id: z.string().nullable(),
      facilitator: z.enum(FACILITATORS),
      settlement_status: z.string(),
      payment_id: z.string(),
      amount_charged_micros: z.number(),
      tokens_saved: z.number(),
      created_at: isoTime,
    }),
  ),
  count: int,
  window: z.object({ from: isoTime, to: isoTime }),
});

export const paymentRoutes = [
  // The reconciliation envelope {events, count, window {from, to}}: the caller's charge events
  // (an admin sees every user's), oldest first. Window defaults: to = now (every stored event: no
  // bound from this host's clock), from = to - 30 days.
  defineRoute({
    method: 'GET',
    path: '/v1/payments/reconciliation',
    auth: 'key',
    query: ReconciliationQuery,
    response: Reconciliation,
    async handler({ services, principal, query }) {
      const from = query.from ?? new Date((query.to ?? new Date()).getTime() - 30 * DAY);
      return {
        body: await reconciliation(services.db, {
          userId: principal.isAdmin ? null : principal.userId,
          from,
          to: query.to,
          facilitator: query.facilitator,
          limit: query.limit,
        }),
      };
    },
  }),
];
