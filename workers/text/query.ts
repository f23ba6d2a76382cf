// Query relevance: BM25 per unit and per section, optional embeddings, fused with RRF (k = 60).
import { bm25Scores, rankPositive } from '../shared/bm25.js';
import { reciprocalRankFusion, RRF_K } from '../shared/rrf.js';
import { cosine } from '../shared/vectors.js';

export type EmbedFn = (texts: string[]) => Promise<Float32Array[]>;

/** Cap on units sent to the embedding hook: the strongest lexical/plain candidates. */
export const EMBED_CANDIDATES = 256;

/**
 * Per-list RRF weights: query evidence leads, the query-independent (plain) ranking breaks ties
 * and orders whatever budget is left once the relevant units are in.
 */
/** Share of a unit's BM25 score given to the next / previous unit of the same block. */
export const NEIGHBOUR_LEAK = { next: 0.5, previous: 0.25 } as const;

export const RRF_WEIGHTS = { unit: 1, section: 0.4, embedding: 1, plain: 0.15 } as const;
/** BM25 length normalisation for sections: milder than for sentences so long relevant sections are not buried by short ones. */
export const SECTION_B = 0.5;

function rankBy(scores: ArrayLike<number>, ids?: number[]): number[] {
  const list = ids ?? Array.from({ length: scores.length }, (_, i) => i);
  return list.sort((a, b) => scores[b]! - scores[a]! || a - b);
}

export interface QueryInput {
  unitTerms: readonly (readonly number[])[];
  /** Section id per unit (enclosing heading, or the block when the text has no headings). */
  section: ArrayLike<number>;
  /** Block index per unit (relevance leaks only to neighbours in the same block). */
  block: ArrayLike<number>;
  /** Headings are ranked through their section (and kept as context), not as answers themselves. */
  isHeading?: ArrayLike<boolean>;
  queryTerms: readonly number[];
  plain: ArrayLike<number>;
  unitText: (i: number) => string;
  query: string;
  embed?: EmbedFn;
}

/** Fused query-guided priority per unit, normalised to 0..1. */
export async function queryPriority(q: QueryInput): Promise<Float64Array> {
  const n = q.unitTerms.length;
  const raw = bm25Scores(q.unitTerms, q.queryTerms);
  // Answers often sit in the sentence right after the one that names the topic
  // ("X has a default max lifetime. This is ... 45 and 90 minutes."), so relevance leaks to neighbours.
  const unitBm25 = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = raw[i]!;
    if (i > 0 && q.block[i - 1] === q.block[i]) s += NEIGHBOUR_LEAK.next * raw[i - 1]!;
    if (i + 1 < n && q.block[i + 1] === q.block[i]) s += NEIGHBOUR_LEAK.previous * raw[i + 1]!;
    unitBm25[i] = s;
  }
  // Sections as documents: a unit in a relevant section is relevant even if it lacks the query words.
  const secIndex = new Map<number, number>();
  const secTerms: number[][] = [];
  for (let i = 0; i < n; i++) {
    let s = secIndex.get(q.section[i]!);
    if (s === undefined) {
      s = secTerms.length;
      secIndex.set(q.section[i]!, s);
      secTerms.push([]);
    }
    for (const t of q.unitTerms[i]!) secTerms[s]!.push(t);
  }
  const secBm25 = bm25Scores(secTerms, q.queryTerms, { b: SECTION_B });
  const unitSec = new Float64Array(n);
  for (let i = 0; i < n; i++) unitSec[i] = secBm25[secIndex.get(q.section[i]!)!]!;
  const plainRank = rankBy(q.plain);
  const unitRank = rankPositive(unitBm25).filter((i) => !q.isHeading?.[i]);
  // Within a relevant section the units that match the query themselves come first.
  const secRank = rankPositive(unitSec).sort((a, b) => unitSec[b]! - unitSec[a]! || unitBm25[b]! - unitBm25[a]! || q.plain[b]! - q.plain[a]! || a - b);
  const rankings = [unitRank, secRank, plainRank];
  const weights = [RRF_WEIGHTS.unit, RRF_WEIGHTS.section, RRF_WEIGHTS.plain];
  if (q.embed && n > 0) {
    const prelim = reciprocalRankFusion(rankings, n, RRF_K, weights);
    const cands = rankBy(prelim).slice(0, EMBED_CANDIDATES);
    let vecs: Float32Array[] = [];
    try {
      vecs = await q.embed([q.query, ...cands.map((i) => q.unitText(i))]);
    } catch {
      vecs = []; // the hook is optional: a failing embedder degrades to lexical relevance
    }
    const sims = new Float64Array(n).fill(-Infinity);
    cands.forEach((id, k) => {
      const v = vecs[k + 1];
      if (vecs[0] && v) sims[id] = cosine(vecs[0], v);
    });
    rankings.push(rankBy(sims, cands.slice()));
    weights.push(RRF_WEIGHTS.embedding);
  }
  const fused = reciprocalRankFusion(rankings, n, RRF_K, weights);
  let max = 0;
  for (let i = 0; i < n; i++) if (fused[i]! > max) max = fused[i]!;
  if (max > 0) for (let i = 0; i < n; i++) fused[i] = fused[i]! / max;
  return fused;
}
