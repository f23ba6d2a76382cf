/** The token figures every compression reports, computed by one rule. */
export interface TokenStats {
  original_tokens: number;
  compressed_tokens: number;
  tokens_saved: number;
  /** 0..100, one decimal; 0 for empty input. */
  savings_percent: number;
  /** compressed / original, 4 decimals; 1 for empty input. */
  ratio: number;
}

/** Share of tokens removed, in percent with one decimal (negative when the output grew). */
export function savingsPercent(original: number, compressed: number): number {
  return original > 0 ? Math.round(((original - compressed) / original) * 1000) / 10 : 0;
}

export function tokenStats(original: number, compressed: number): TokenStats {
  return {
    original_tokens: original,
    compressed_tokens: compressed,
    tokens_saved: original - compressed,
    savings_percent: savingsPercent(original, compressed),
    ratio: original > 0 ? Math.round((compressed / original) * 10000) / 10000 : 1,
  };
}
