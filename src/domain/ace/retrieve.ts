// The bullets a prompt carries: the playbook's bullets ranked for a query (the memory search's hybrid
// BM25 + embedding ranking, in the pool) and packed within a token budget measured on the rendered text.
import type { Call } from '../call.js';
import { listBullets, loadVectors, renderBullets, type BulletRow, type PlaybookRow } from './playbooks.js';

/** Distinguishes this process's playbook indexes from another's in worker caches. */
const NONCE = Math.random().toString(36).slice(2, 10);
/** Bullets ranked per query: beyond this, the least relevant are not considered for the prompt. */
const RANK_LIMIT = 500;

export interface Selection {
  bullets: (BulletRow & { score: number | null })[];
  text: string;
  tokens: number;
  /** Bullets the playbook holds (all sections). */
  total: number;
}

function bulletText(b: BulletRow): string {
  return `${b.section}: ${b.content}`;
}

/** Ranks by relevance to `query` (all bullets when the playbook is small enough) and packs into `budget` tokens. */
export async function selectBullets(call: Call, playbook: PlaybookRow, query: string, budget: number): Promise<Selection> {
  const { db } = call.services;
  const rows = await listBullets(db, playbook.id);
  if (!rows.length) return { bullets: [], text: '', tokens: 0, total: 0 };
  const key = `ace:${NONCE}:${playbook.id}:${playbook.version}`;
  const base = { key, query, limit: Math.min(rows.length, RANK_LIMIT), mode: 'hybrid' as const };
  let out = await call.compute('memorySearch', base);
  let order = rows;
  // A worker's index is of this version's bullets in seq order; a count that differs means it is not.
  if (out.miss || out.n !== rows.length) {
    const corpus = await loadVectors(db, playbook.id);
    order = corpus.rows;
    out = await call.compute('memorySearch', { ...base, corpus: { texts: corpus.rows.map(bulletText), vectors: corpus.vectors, dims: corpus.dims } });
  }
  const ranked = out.miss ? [] : out.hits.map((h) => ({ ...order[h.index]!, score: h.score }));
  return pack(call, ranked, budget, rows.length);
}

/** Greedy packing in the given order by stored token counts, then trimmed until the rendered text fits. */
export async function pack(call: Call, ranked: (BulletRow & { score: number | null })[], budget: number, total: number): Promise<Selection> {
  const chosen: (BulletRow & { score: number | null })[] = [];
  let estimate = 0;
  for (const b of ranked) {
    // Label and line overhead: a few tokens per bullet; the exact count is measured below.
    const cost = b.tokens + 6;
    if (estimate + cost > budget) continue;
    chosen.push(b);
    estimate += cost;
  }
  for (;;) {
    const bySeq = [...chosen].sort((a, b) => a.seq - b.seq);
    const text = renderBullets(bySeq);
    const tokens = text ? (await call.compute('memoryCount', { texts: [text] })).tokens[0]! : 0;
    if (tokens <= budget || !chosen.length) return { bullets: chosen, text, tokens, total };
    chosen.pop(); // the least relevant goes first
  }
}
