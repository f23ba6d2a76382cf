import { z } from 'zod';
import { expandMarkers, MAX_EXPAND_IDS } from '../domain/compression/expand.js';
import { defineRoute } from '../http/route.js';

const markerId = z.string().min(1).max(64);

// An extension beyond the spec (docs/contract.md, docs/markers.md).
const ExpandBody = z
  .object({ id: markerId.optional(), ids: z.array(markerId).min(1).max(MAX_EXPAND_IDS).optional() })
  .strict()
  .refine((b) => (b.id === undefined) !== (b.ids === undefined), { message: 'Give exactly one of id or ids', path: ['id'] });

export const expandRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/expand',
    auth: 'key',
    body: ExpandBody,
    response: z.object({ expansions: z.array(z.object({ id: z.string(), text: z.string() })) }),
    doc: {
      summary: 'Expand elision markers',
      description: 'The exact original text each marker id stands for (`#<ref>.<n>` ending a marker such as `[… Install, Usage: 212 tokens #482913650271.0]`). Your own ids only: any other id is 404.',
      requestExample: { ids: ['482913650271.0'] },
      responseExample: { expansions: [{ id: '482913650271.0', text: 'The hidden sentences, exactly as written.' }] },
    },
    async handler({ body, principal, services }) {
      const ids = body.ids ?? [body.id!];
      return { body: { expansions: await expandMarkers(services, principal.userId, ids, body.ids ? 'ids' : 'id') } };
    },
  }),
];
