// What the compression use cases and the readiness probe reach of the semantic cache
// (src/cache/semanticCache.ts implements it in process or on Redis).

/** A stored compression: the response body exactly as first sent, plus the counts usage events need. */
export interface CachedResponse {
  body: Uint8Array;
  originalTokens: number;
  compressedTokens: number;
}

export interface SemanticCache {
  get(key: string): Promise<CachedResponse | null>;
  set(key: string, value: CachedResponse, ttlMs: number): Promise<void>;
  /** Resolves when the shared cache answers (readiness); the in-process cache always does. */
  ping(): Promise<void>;
}
