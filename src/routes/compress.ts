import { z } from 'zod';
import { compressForCaller } from '../domain/compression.js';
import { defineRoute } from '../http/route.js';
import { fidelity, modelName } from './schemas.js';

const CompressBody = z.object({
  text: z.string().min(1),
  query: z.string().max(10_000).nullish(),
  fidelity: fidelity.default('balanced'),
  model: modelName.nullish(),
});

export const compressRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/compress',
    auth: 'key',
    body: CompressBody,
    async handler({ body, principal, services, signal }) {
      const response = await compressForCaller(services, principal, body, { method: 'REST', signal });
      return { body: response };
    },
  }),
];
