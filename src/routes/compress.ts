import { z } from 'zod';
import { isFidelity, FIDELITIES } from '../../workers/shared/fidelity.js';
import { compressForCaller, compressThroughCache } from '../domain/compression/text.js';
import { recordRestCompression } from '../domain/compression/restAccounting.js';
import { recordUsageInBackground } from '../domain/accounts/usage.js';
import { HttpError } from '../http/errors.js';
import { defineRoute } from '../http/route.js';
import { mapLimit } from '../lib/mapLimit.js';
import { fidelity, modelName } from './schemas.js';

const CompressBody = z.object({
  text: z.string().min(1),
  query: z.string().max(10_000).nullish(),
  fidelity: fidelity.default('balanced'),
  model: modelName.nullish(),
  include_quality: z.boolean().default(false),
});

/** Spec limits: 50 documents per batch, 4 in flight per request. */
export const BATCH_MAX_DOCUMENTS = 50;
export const BATCH_CONCURRENCY = 4;

// Items are checked one by one so that one bad document fails alone and the batch still answers 200.
const BatchBody = z.object({
  documents: z
    .array(
      z.object({
        id: z.string().max(200).optional(),
        text: z.string(),
        fidelity: z.string().optional(),
        query: z.string().max(10_000).nullish(),
        model: modelName.nullish(),
      }),
    )
    .min(1)
    .max(BATCH_MAX_DOCUMENTS),
  fidelity: fidelity.optional(),
});

const RecommendBody = z
  .object({
    text: z.string().min(1).optional(),
    document: z.string().min(1).optional(),
    model: modelName.nullish(),
    context_window: z.number().int().positive().nullish(),
  })
  .refine((b) => b.text !== undefined || b.document !== undefined, { message: 'document is required', path: ['document'] });

export const compressRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/compress',
    auth: 'key',
    body: CompressBody,
    async handler({ body, principal, services, signal, headers }) {
      const started = performance.now();
      const result = await compressThroughCache(services, principal, body, signal);
      recordRestCompression(services, principal, headers, {
        fidelity: body.fidelity, model: body.model, inputTokens: result.originalTokens, outputTokens: result.compressedTokens,
        started, inputText: body.text, cacheHit: result.cache === 'hit',
      });
      return { raw: result.body, headers: { 'x-semantic-cache': result.cache } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/batch-compress',
    auth: 'key',
    body: BatchBody,
    async handler({ body, principal, services, signal }) {
      const results = await mapLimit(body.documents, BATCH_CONCURRENCY, async (doc, index) => {
        const started = performance.now();
        const level = doc.fidelity ?? body.fidelity ?? 'balanced';
        try {
          if (!isFidelity(level)) throw new HttpError(400, `Invalid fidelity '${level}'. Valid values: ${FIDELITIES.join(', ')}`);
          if (doc.text.length === 0) throw new HttpError(422, 'text must not be empty');
          const response = await compressForCaller(services, principal, { text: doc.text, fidelity: level, query: doc.query, model: doc.model }, signal);
          recordUsageInBackground(services, {
            principal, method: 'batch', fidelity: level, model: doc.model, status: 'success',
            inputTokens: response.original_tokens, outputTokens: response.compressed_tokens,
            latencyMs: performance.now() - started, inputText: doc.text,
          });
          return { index, id: doc.id ?? null, ...response, error: null };
        } catch (err) {
          if (err instanceof HttpError && err.status === 429) throw err;
          const detail = err instanceof HttpError ? String(err.detail) : 'compression failed';
          if (!(err instanceof HttpError)) services.log.error('batch document failed', { index, error: String(err) });
          return { index, id: doc.id ?? null, error: detail };
        }
      });
      const ok = results.filter((r): r is Extract<typeof r, { original_tokens: number }> => r.error === null);
      const original = ok.reduce((s, r) => s + r.original_tokens, 0);
      const compressed = ok.reduce((s, r) => s + r.compressed_tokens, 0);
      return {
        body: {
          results,
          summary: {
            documents: results.length,
            succeeded: ok.length,
            failed: results.length - ok.length,
            total_original_tokens: original,
            total_compressed_tokens: compressed,
            total_tokens_saved: original - compressed,
            overall_savings_percent: original ? Math.round(((original - compressed) / original) * 1000) / 10 : 0,
          },
        },
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/recommend',
    auth: 'key',
    body: RecommendBody,
    async handler({ body, services, signal }) {
      const result = await services.pool.run(
        'recommend',
        { text: (body.document ?? body.text)!, model: body.model ?? null, context_window: body.context_window ?? null },
        signal,
      );
      return { body: result };
    },
  }),
];
