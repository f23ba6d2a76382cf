import { z } from 'zod';
import { isFidelity, FIDELITIES } from '../../workers/shared/fidelity.js';
import { compressResponse } from '../domain/compression/response.js';
import { compressText, compressTextCached, compressTextGroup, type CompressRequest, type GroupOutcome } from '../domain/compression/text.js';
import type { Call } from '../domain/call.js';
import { quotaUncounted } from '../domain/metering/quota.js';
import { recommendFidelity } from '../domain/compression/tokens.js';
import { asDomainError, invalid, invalidInput } from '../domain/errors.js';
import { savingsPercent } from '../../workers/shared/stats.js';
import { defineRoute } from '../http/route.js';
import { mapLimit } from '../lib/mapLimit.js';
import { fidelity, int, modelName, namedValues, tokenizer } from './schemas.js';

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
        fidelity: namedValues(z.string(), FIDELITIES, 'any other value fails this document alone').optional(),
        query: z.string().max(10_000).nullish(),
        model: modelName.nullish(),
      }),
    )
    .min(1)
    .max(BATCH_MAX_DOCUMENTS),
  fidelity: fidelity.optional(),
});

type BatchDocument = z.infer<typeof BatchBody>['documents'][number];
type BatchResult = { index: number; error: string | null; original_tokens?: number; compressed_tokens?: number };

/** Documents up to this many characters share a pool task, GROUP_SIZE at a time (the hand-off costs about what a small document's compression does). */
const GROUP_MAX_CHARS = 4_000;
const GROUP_SIZE = 8;

interface BatchUnitItem {
  doc: BatchDocument;
  index: number;
  /** Set for grouped documents (checked already); a document alone is checked when it runs. */
  request?: CompressRequest;
}

/**
 * The batch as units of work in document order: small valid documents in groups of GROUP_SIZE (when
 * `grouping`: only a key whose quota is not counted, as each document's quota is checked before its
 * group runs), every other document alone, as before.
 */
function batchUnits(documents: readonly BatchDocument[], requestOf: (doc: BatchDocument, index: number) => CompressRequest, grouping: boolean): BatchUnitItem[][] {
  const units: BatchUnitItem[][] = [];
  let group: BatchUnitItem[] = [];
  documents.forEach((doc, index) => {
    let request: CompressRequest | null = null;
    try {
      if (grouping && doc.text.length <= GROUP_MAX_CHARS) request = requestOf(doc, index);
    } catch {
      request = null; // its own unit reports the error
    }
    if (!request) {
      units.push([{ doc, index }]);
      return;
    }
    group.push({ doc, index, request });
    if (group.length === GROUP_SIZE) {
      units.push(group);
      group = [];
    }
  });
  if (group.length) units.push(group);
  return units;
}

const NDJSON = 'application/x-ndjson';
const wantsNdjson = (accept: string | undefined) => (accept ?? '').split(',').some((t) => t.trim().split(';')[0]!.toLowerCase() === NDJSON);

function batchSummary(results: readonly BatchResult[]) {
  const ok = results.filter((r) => r.error === null);
  const original = ok.reduce((s, r) => s + r.original_tokens!, 0);
  const compressed = ok.reduce((s, r) => s + r.compressed_tokens!, 0);
  return {
    documents: results.length,
    succeeded: ok.length,
    failed: results.length - ok.length,
    total_original_tokens: original,
    total_compressed_tokens: compressed,
    total_tokens_saved: original - compressed,
    overall_savings_percent: savingsPercent(original, compressed),
  };
}

/**
 * `Accept: application/x-ndjson`: one line per document as soon as it finishes (completion order,
 * each with its `index`), then `{"summary": …}`. Documents start only while the client reads: the
 * writer pulls a line when the socket has room, and at most BATCH_CONCURRENCY run ahead of it. A client
 * that goes away stops the documents not yet started. An exhausted quota ends the stream with
 * `{"error": …, "detail": …}` (the status line has already gone out).
 */
async function* batchLines<R extends BatchResult>(documents: readonly BatchDocument[], one: (doc: BatchDocument, index: number) => Promise<R>): AsyncGenerator<string> {
  const results: R[] = [];
  const running = new Map<number, Promise<{ index: number; result?: R; error?: unknown }>>();
  let next = 0;
  const start = () => {
    const index = next++;
    running.set(index, one(documents[index]!, index).then((result) => ({ index, result }), (error: unknown) => ({ index, error })));
  };
  try {
    while (next < documents.length && running.size < BATCH_CONCURRENCY) start();
    while (running.size) {
      const settled = await Promise.race(running.values());
      running.delete(settled.index);
      if (settled.error !== undefined) {
        const known = asDomainError(settled.error);
        yield JSON.stringify({ error: known?.kind ?? 'internal_error', detail: known?.detail ?? 'batch failed' }) + '\n';
        return;
      }
      results.push(settled.result!);
      yield JSON.stringify(settled.result) + '\n';
      if (next < documents.length) start();
    }
    yield JSON.stringify({ summary: batchSummary(results) }) + '\n';
  } finally {
    next = documents.length; // the client left (or the stream ended): start nothing more
  }
}

const RecommendBody = z
  .object({
    text: z.string().min(1).optional(),
    document: z.string().min(1).optional(),
    model: modelName.nullish(),
    context_window: z.number().int().positive().nullish(),
  })
  .refine((b) => b.text !== undefined || b.document !== undefined, { message: 'document is required', path: ['document'] });

/** A batch document's result: its compression, or error (then the compression fields are absent). */
const batchResponse = z.object({
  results: z.array(compressResponse.partial().extend({ index: z.number().int(), id: z.string().nullable(), error: z.string().nullable() })),
  summary: z.object({
    documents: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    total_original_tokens: z.number().int(),
    total_compressed_tokens: z.number().int(),
    total_tokens_saved: z.number().int(),
    overall_savings_percent: z.number(),
  }),
});

/** workers/text RecommendResult. */
const recommendResponse = z.object({
  recommended_fidelity: z.enum(FIDELITIES),
  original_tokens: int,
  estimated_compressed_tokens: int,
  context_window: int.nullable(),
  tokenizer,
  reason: z.string(),
});

export const compressRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/compress',
    auth: 'key',
    usage: true,
    body: CompressBody,
    response: compressResponse,
    doc: {
      summary: 'Compress text',
      description: 'Fewer tokens that keep the meaning; with query, the sections relevant to it come first. X-Semantic-Cache: hit on a stored answer.',
      requestExample: { text: 'The service compresses text. It keeps the meaning and drops the filler.', fidelity: 'balanced' },
    },
    async handler({ body, call }) {
      const result = await compressTextCached(call, body);
      return { raw: result.body, headers: { 'x-semantic-cache': result.cache } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/batch-compress',
    auth: 'key',
    doc: {
      summary: 'Compress up to 50 documents',
      description: 'One result per document (a failed one carries error) and a summary; Accept: application/x-ndjson streams each result as it finishes.',
      requestExample: { documents: [{ id: 'a', text: 'First document. It has two sentences.' }, { id: 'b', text: 'Second one.', fidelity: 'outline' }] },
    },
    body: BatchBody,
    response: batchResponse,
    async handler({ body, call, services, headers }) {
      // Each document is a call of its own (method batch, one usage event with its status); the
      // batch answers 200 with per-document errors, except when the quota runs out.
      const requestOf = (doc: BatchDocument, index: number): CompressRequest => {
        const level = doc.fidelity ?? body.fidelity ?? 'balanced';
        if (!isFidelity(level)) throw invalid(`Invalid fidelity '${level}'. Valid values: ${FIDELITIES.join(', ')}`);
        if (doc.text.length === 0) throw invalidInput('text must not be empty', [{ loc: ['documents', index, 'text'], msg: 'text must not be empty', type: 'value_error.too_small' }]);
        return { text: doc.text, fidelity: level, query: doc.query, model: doc.model };
      };
      const settle = async (docCall: Call, doc: BatchDocument, index: number, outcome: GroupOutcome): Promise<BatchResult & Record<string, unknown>> => {
        if ('response' in outcome) {
          await docCall.finish('success');
          return { index, id: doc.id ?? null, ...outcome.response, error: null };
        }
        const err = outcome.error;
        await docCall.finishWith(err).catch(() => undefined);
        const known = asDomainError(err);
        if (known?.kind === 'quota_exceeded') throw err;
        if (!known) services.log.error('batch document failed', { index, error: String(err) });
        return { index, id: doc.id ?? null, error: known ? known.detail : 'compression failed' };
      };
      const one = async (doc: BatchDocument, index: number) => {
        const docCall = call.child('batch');
        let outcome: GroupOutcome;
        try {
          outcome = { response: await compressText(docCall, requestOf(doc, index)) };
        } catch (error) {
          outcome = { error };
        }
        return settle(docCall, doc, index, outcome);
      };
      if (wantsNdjson(headers.accept)) {
        await call.requireQuota(); // an exhausted quota is still a status code, before the stream starts
        return { contentType: NDJSON, stream: batchLines(body.documents, one) };
      }
      const results = await mapLimit(batchUnits(body.documents, requestOf, quotaUncounted(call.principal)), BATCH_CONCURRENCY, async (unit) => {
        if (unit.length === 1) return [await one(unit[0]!.doc, unit[0]!.index)];
        const calls = unit.map(() => call.child('batch'));
        const outcomes = await compressTextGroup(call, calls, unit.map((u) => u.request!));
        return Promise.all(unit.map((u, k) => settle(calls[k]!, u.doc, u.index, outcomes[k]!)));
      });
      return { body: { results: results.flat().sort((a, b) => a.index - b.index), summary: batchSummary(results.flat()) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/recommend',
    auth: 'key',
    body: RecommendBody,
    response: recommendResponse,
    handler: async ({ body, call }) => ({
      body: await recommendFidelity(call, { text: (body.document ?? body.text)!, model: body.model ?? null, context_window: body.context_window ?? null }),
    }),
  }),
];
