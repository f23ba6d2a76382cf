// Public shapes of the detection engine (plain, structured-cloneable data).

export interface DetectInput {
  original_text: string;
  compressed_text: string;
  /** Default true. */
  check_hallucination?: boolean;
  /** Default true. */
  check_blind_spots?: boolean;
}

export type Severity = 'low' | 'medium' | 'high';

export interface DetectedIssue {
  type: 'hallucination' | 'blind_spot';
  severity: Severity;
  description: string;
  /**
   * Hallucination: `compressed:line L, chars S-E` (1-based line; 0-based [S, E) offsets into compressed_text).
   * Blind spot: `original:line L (section "H")`, `original:lines L1, L2 (section "H")` or, for a dropped
   * section, `original:lines A-B (section "H")`; the section part is left out when the original has no headings.
   * null only for the summary of blind spots beyond the cap.
   */
  location: string | null;
}

export interface DetectResult {
  issues_found: number;
  issues: DetectedIssue[];
  /** 0..1; exactly 1 when no issue is found. */
  quality_score: number;
}

export interface DetectOptions {
  /** Optional embeddings hook (same shape as the text engine's): rescues paraphrases lexical alignment misses. */
  embed?: (texts: string[]) => Promise<Float32Array[]>;
}

/** A quoted, length-bounded snippet for descriptions. */
export function quote(s: string, max = 120): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return `"${t.length > max ? t.slice(0, max - 1) + '…' : t}"`;
}
