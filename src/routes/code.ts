import { z } from 'zod';
import { compressCode, compressRepository } from '../domain/compression/code.js';
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
    usage: true,
    body: CompressCodeBody,
    handler: async ({ body, call }) => ({ body: await compressCode(call, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/compress-code/structural',
    auth: 'key',
    usage: true,
    body: StructuralBody,
    repositoryBody: true,
    handler: async ({ body, call }) => ({ body: await compressRepository(call, body) }),
  }),
];
