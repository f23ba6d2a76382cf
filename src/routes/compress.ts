import { z } from 'zod';
import { compressForCaller } from '../domain/compression.js';
import { recordUsageInBackground } from '../domain/usage.js';
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
      const started = performance.now();
      const response = await compressForCaller(services, principal, body, signal);
      recordUsageInBackground(services, {
        principal,
        method: 'REST',
        fidelity: body.fidelity,
        model: body.model,
        status: 'success',
        inputTokens: response.original_tokens,
        outputTokens: response.compressed_tokens,
        latencyMs: performance.now() - started,
        inputText: body.text,
      });
      return { body: response };
    },
  }),
];
