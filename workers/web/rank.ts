// Ranks a search provider's results for the caller's query: BM25 over each result's title, snippet
// and extra snippets, fused with the provider's own order by reciprocal rank (k = 60), so a result
// both agree on comes first and neither signal alone decides.
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export interface RankedHit extends SearchHit {
  provider_rank: number;
  lexical_score: number;
  score: number;
}

const RRF_K = 60;

const terms = (s: string) => s.toLowerCase().normalize('NFKD').match(/[\p{L}\p{N}]+/gu)?.filter((t) => t.length > 1) ?? [];

export function rankHits(query: string, hits: SearchHit[]): RankedHit[] {
  const q = [...new Set(terms(query))];
  const docs = hits.map((h) => terms(`${h.title} ${h.title} ${h.snippet}`));
  const avg = docs.reduce((n, d) => n + d.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const bm25 = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    let s = 0;
    for (const t of q) {
      const f = tf.get(t) ?? 0;
      if (!f) continue;
      const n = df.get(t) ?? 0;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      s += (idf * f * 2.2) / (f + 1.2 * (0.25 + 0.75 * (d.length / (avg || 1))));
    }
    return s;
  });
  const lexicalOrder = bm25.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i);
  const lexicalRank = new Array<number>(hits.length);
  lexicalOrder.forEach(({ i }, r) => (lexicalRank[i] = r));
  return hits
    .map((h, i) => ({
      ...h,
      provider_rank: i + 1,
      lexical_score: Number(bm25[i]!.toFixed(4)),
      // Results with no query term get only the provider's vote.
      score: Number((1 / (RRF_K + i + 1) + (bm25[i]! > 0 ? 1 / (RRF_K + lexicalRank[i]! + 1) : 0)).toFixed(6)),
    }))
    .sort((a, b) => b.score - a.score || a.provider_rank - b.provider_rank);
}
