/**
 * Reciprocal rank fusion: each ranking lists item ids best first; an item scores sum(1 / (k + rank)).
 * Items absent from a ranking contribute nothing for it.
 */
export function rrf(rankings: number[][], k = 60): Map<number, number> {
  const scores = new Map<number, number>();
  for (const ranking of rankings) ranking.forEach((item, i) => scores.set(item, (scores.get(item) ?? 0) + 1 / (k + i + 1)));
  return scores;
}
