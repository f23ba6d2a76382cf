import { z } from 'zod';
import { FIDELITIES } from '../../../workers/shared/fidelity.js';

/**
 * What text compression answers (CompressResponse, text.ts), as a schema: the response of
 * /v1/compress in /openapi.json and the outputSchema of the MCP tools that return it. Loose: a
 * surface may add fields of its own (adapt_to_context_window's room_tokens).
 */
export const compressResponse = z.looseObject({
  compressed_text: z.string(),
  original_tokens: z.number().int(),
  compressed_tokens: z.number().int(),
  tokens_saved: z.number().int(),
  savings_percent: z.number(),
  compression_ratio: z.number(),
  fidelity: z.enum(FIDELITIES),
  mode: z.enum(['plain', 'query-guided']),
  tokenizer: z.string(),
  original_id: z.string().nullable(),
  budget_tokens: z.number().int().optional(),
  over_budget: z.enum(['short_input', 'not_shorter']).optional(),
  quality: z.looseObject({ quality_score: z.number(), issues_found: z.number().int(), issues: z.array(z.unknown()) }).optional(),
});
