// Use cases over ingested documents (ingest_context, read_skeleton, modulate_region).
import type { Fidelity } from '../../../workers/shared/fidelity.js';
import { savingsPercent } from '../../../workers/shared/stats.js';
import type { Call } from '../call.js';
import { invalid, invalidInput, notFound } from '../errors.js';
import { FetchRefusedError, fetchPublicHttps } from '../platform/ssrf.js';
import {
  evidenceFor, getDocument, getDocumentContent, getNodes, planNode, REGION_BUDGET, saveDocument, splitIntoNodes, trimToBudget,
  type DocumentRow, type NodeRow, type RegionLevel,
} from './documents.js';
import { compressParts, compressText } from './text.js';
import { countTokensMany } from './tokens.js';

/** Largest document accepted, inline or fetched (characters / bytes). */
export const MAX_DOCUMENT_CHARS = 2_000_000;
export const FETCH_TIMEOUT_MS = 10_000;

export async function ownedDocument(call: Call, id: string): Promise<DocumentRow> {
  const doc = await getDocument(call.services.db, call.principal.userId, id);
  if (!doc) throw notFound(`No document ${id}`);
  return doc;
}

/** A display name for a fetched document: the last path segment, else the host. */
function urlName(raw: string): string {
  const url = new URL(raw);
  const last = url.pathname.split('/').filter(Boolean).pop();
  try {
    return last ? decodeURIComponent(last) : url.hostname;
  } catch {
    return last ?? url.hostname;
  }
}

async function fetchDocument(url: string): Promise<{ text: string; contentType: string | null; finalUrl: string }> {
  try {
    return await fetchPublicHttps(url, { maxBytes: MAX_DOCUMENT_CHARS, timeoutMs: FETCH_TIMEOUT_MS, maxRedirects: 3 });
  } catch (err) {
    if (err instanceof FetchRefusedError) throw invalid(err.message, { code: 'fetch_refused', extra: { reason: err.reason } });
    throw err;
  }
}

export interface IngestInput {
  text?: string;
  fileUrl?: string;
  filePath?: string;
  name?: string;
  metadata?: Record<string, unknown>;
  fidelity: Fidelity;
  query?: string;
}

/** Stores a document split into nodes, and returns it with its skeleton (a compression of its own). */
export async function ingestDocument(call: Call, input: IngestInput) {
  let text: string;
  let source: 'inline' | 'url' = 'inline';
  let sourceUrl: string | null = null;
  const metadata: Record<string, unknown> = { ...(input.metadata ?? {}) };
  if (input.fileUrl !== undefined) {
    const fetched = await fetchDocument(input.fileUrl);
    text = fetched.text;
    source = 'url';
    sourceUrl = fetched.finalUrl;
    if (fetched.contentType) metadata.content_type = fetched.contentType;
  } else {
    text = input.text ?? '';
  }
  const split = splitIntoNodes(text);
  if (split.length === 0) throw invalidInput('The document is empty', [{ loc: ['text'], msg: 'only whitespace', type: 'custom' }]);
  // The skeleton first: its quota check refuses before anything is stored.
  const skeleton = await compressText(call, { text, fidelity: input.fidelity, query: input.query ?? null });
  const tokens = await countTokensMany(call, split.map((n) => n.text));
  const { row, status } = await saveDocument(call.services.db, {
    userId: call.principal.userId,
    keyId: call.principal.keyId,
    projectId: call.principal.projectId,
    name: input.name ?? input.filePath?.split(/[\\/]/).pop() ?? (sourceUrl ? urlName(sourceUrl) : null),
    source,
    sourceUrl,
    filePath: input.filePath ?? null,
    content: text,
    metadata,
    nodes: split.map((n, i) => ({ ...n, tokens: tokens[i]! })),
  });
  return { row, status, skeleton, nodes: split.map((n, i) => ({ id: n.id, heading: n.heading, level: n.level, tokens: tokens[i]! })) };
}

export type SelectionMode = 'auto' | 'baseline' | 'query_guided' | 'evidence_aware';

/** A stored document's skeleton, plain or query-guided, with an evidence report on request. */
export async function readSkeleton(call: Call, input: { fileId: string; mode: SelectionMode; query?: string; fidelity: Fidelity }) {
  const resolved = input.mode === 'auto' ? (input.query ? 'query_guided' : 'baseline') : input.mode;
  if (resolved !== 'baseline' && !input.query) {
    throw invalidInput(`selection_mode ${resolved} needs a query`, [{ loc: ['query'], msg: 'Required', type: 'invalid_type' }]);
  }
  const { db } = call.services;
  const doc = await ownedDocument(call, input.fileId);
  const [content, nodes] = await Promise.all([
    getDocumentContent(db, call.principal.userId, input.fileId),
    getNodes(db, call.principal.userId, input.fileId),
  ]);
  if (content === null) throw notFound(`No document ${input.fileId}`);
  const query = resolved === 'baseline' ? null : input.query!;
  const skeleton = await compressText(call, { text: content, fidelity: input.fidelity, query });
  call.report({ ...call.reported!, inputText: query ?? doc.name });
  const evidence = resolved === 'evidence_aware' ? evidenceFor(query!, nodes) : null;
  return { doc, nodes, resolved, query, skeleton, evidence };
}

type RegionOut = { text: string; tokens: number; method: 'raw' | 'verbatim' | 'compressed' | 'trimmed' };

const LEVEL_FIDELITY = { ABSTRACT: 'abstract', OUTLINE: 'outline', STRUCTURE: 'balanced', DETAILED: 'detailed', RAW: 'raw' } as const;

/**
 * Nodes of a stored document at a per-node token target: short nodes verbatim, mid-size nodes trimmed,
 * large ones compressed by the engine in one pool task.
 */
export async function modulateRegion(call: Call, doc: DocumentRow, nodes: NodeRow[], level: RegionLevel) {
  await call.requireQuota();
  const budget = level === 'RAW' ? null : REGION_BUDGET[level];
  const outs: RegionOut[] = new Array(nodes.length);
  const toTrim: number[] = [];
  const toCompress: { i: number; fidelity: Fidelity }[] = [];
  let poolTasks = 0;
  nodes.forEach((n, i) => {
    if (budget === null) outs[i] = { text: n.content, tokens: n.tokens, method: 'raw' };
    else {
      const plan = planNode(n.tokens, budget);
      if (plan.kind === 'verbatim') outs[i] = { text: n.content, tokens: n.tokens, method: 'verbatim' };
      else if (plan.kind === 'trim') toTrim.push(i);
      else toCompress.push({ i, fidelity: plan.fidelity });
    }
  });
  if (toCompress.length > 0) {
    const compressed = await compressParts(call, toCompress.map(({ i, fidelity }) => ({ text: nodes[i]!.content, fidelity })));
    poolTasks++;
    // The engine may pass a small budget to keep a sentence whole (docs/text-engine.md); a region's
    // budget is firm, so such a node is trimmed instead.
    toCompress.forEach(({ i }, k) => {
      const r = compressed[k]!;
      if (budget !== null && r.compressed_tokens > Math.ceil(budget * 1.3)) toTrim.push(i);
      else outs[i] = { text: r.compressed_text, tokens: r.compressed_tokens, method: 'compressed' };
    });
  }
  // Trims: cheap string cuts sized by the node's own characters per token, then counted exactly;
  // one correction pass when the estimate overshot by more than 30%.
  if (toTrim.length && budget !== null) {
    const ratio = (i: number) => Math.max(1, nodes[i]!.content.length / Math.max(1, nodes[i]!.tokens));
    const texts = toTrim.map((i) => trimToBudget(nodes[i]!.content, nodes[i]!.heading, budget, ratio(i)));
    const counts = await countTokensMany(call, texts);
    poolTasks++;
    const over = counts.map((c, k) => (c > budget * 1.3 ? k : -1)).filter((k) => k >= 0);
    if (over.length) {
      const fixed = over.map((k) => trimToBudget(nodes[toTrim[k]!]!.content, nodes[toTrim[k]!]!.heading, budget, (ratio(toTrim[k]!) * budget) / counts[k]!));
      const fixedCounts = await countTokensMany(call, fixed);
      poolTasks++;
      over.forEach((k, j) => {
        texts[k] = fixed[j]!;
        counts[k] = fixedCounts[j]!;
      });
    }
    toTrim.forEach((i, k) => (outs[i] = { text: texts[k]!, tokens: counts[k]!, method: 'trimmed' }));
  }
  const originalTokens = nodes.reduce((s, n) => s + n.tokens, 0);
  const outputTokens = outs.reduce((s, o) => s + o.tokens, 0);
  call.report({ inputTokens: originalTokens, outputTokens, fidelity: LEVEL_FIDELITY[level], inputText: doc.name });
  return {
    budget,
    outs,
    originalTokens,
    outputTokens,
    savingsPercent: savingsPercent(originalTokens, outputTokens),
    poolTasks,
  };
}
