// What request handlers and use cases record and read of the service's metrics (src/metrics/metrics.ts implements it).

export interface Metrics {
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** The spec's gc_compress_duration_seconds, per endpoint. */
  observeCompress(endpoint: string, seconds: number): void;
  observeCache(hit: boolean): void;
  /** Share of cache lookups that hit, or null before the first lookup. */
  cacheHitRate(): number | null;
  /** OpenMetrics when the Accept header asks for it, else the Prometheus text format 0.0.4. */
  render(accept?: string): Promise<{ body: string; contentType: string }>;
}
