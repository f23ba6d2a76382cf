import { z } from 'zod';
import { compressCodeForCaller, structuralForCaller } from '../domain/compression/code.js';
import { recordRestCompression } from '../domain/compression/restAccounting.js';
import { defineRoute } from '../http/route.js';
import { fidelity, modelName } from './schemas.js';

const CompressCodeBody = z.object({
  code: z.string(),
  language: z.string().max(40).nullish(),
  filename: z.string().max(500).nullish(),
  fidelity: fidelity.default('balanced'),
  model: modelName.nullish(),
});

const StructuralBody = z.object({
  files: z
    .array(z.object({ path: z.string().min(1).max(1000), content: z.string(), language: z.string().max(40).nullish() }))
    .min(1)
    .max(10_000),
  query: z.string().max(10_000).nullish(),
  focus_symbols: z.array(z.string().min(1).max(300)).max(100).optional(),
  blast_radius: z.boolean().optional(),
  token_budget: z.number().int().min(64).max(2_000_000).optional(),
  fidelity: fidelity.optional(),
  model: modelName.nullish(),
});

export const codeRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/compress-code',
    auth: 'key',
    body: CompressCodeBody,
    async handler({ body, principal, services, signal, headers }) {
      const started = performance.now();
      const result = await compressCodeForCaller(services, principal, body, signal);
      recordRestCompression(services, principal, headers, {
        fidelity: body.fidelity, model: body.model, inputTokens: result.original_tokens,
        outputTokens: result.compressed_tokens, started, inputText: body.code,
      });
      return { body: result };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/compress-code/structural',
    auth: 'key',
    body: StructuralBody,
    repositoryBody: true,
    async handler({ body, principal, services, signal, headers }) {
      const started = performance.now();
      const result = await structuralForCaller(services, principal, body, signal);
      recordRestCompression(services, principal, headers, {
        fidelity: result.fidelity, model: body.model, inputTokens: result.original_tokens,
        outputTokens: result.compressed_tokens, started, inputText: body.files[0]?.path ?? null,
      });
      return { body: result };
    },
  }),
];
