import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics as MetricsPort } from '../domain/ports/metrics.js';

/** Request and compression latency buckets, in seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Format = 'prometheus' | 'openmetrics';
const CONTENT_TYPE: Record<Format, string> = {
  prometheus: Registry.PROMETHEUS_CONTENT_TYPE,
  openmetrics: Registry.OPENMETRICS_CONTENT_TYPE,
};

/** One registry per exposition format. */
function registries(): Record<Format, Registry> {
  const openmetrics = new Registry();
  openmetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE as never);
  return { prometheus: new Registry(), openmetrics };
}

const LINT_REFUSED = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * The standard process_* and nodejs_* series, once per process in each format: they describe the
 * process, not one app (tests start many apps in one process).
 */
let processRegistries: Record<Format, Registry> | null = null;
function processSeries(): Record<Format, Registry> {
  if (!processRegistries) {
    processRegistries = registries();
    for (const register of Object.values(processRegistries)) {
      collectDefaultMetrics({ register });
      // Gauges named like counters: promtool's lint refuses them (docs/observability.md).
      for (const name of LINT_REFUSED) register.removeSingleMetric(name);
    }
  }
  return processRegistries;
}

/** The service's series (prom-client), exposed as Prometheus text or OpenMetrics as the scraper asks. */
export class Metrics implements MetricsPort {
  private readonly registries = registries();
  private readonly registers = Object.values(this.registries);
  private readonly requests = new Counter({
    name: 'gc_http_requests_total',
    help: 'HTTP requests by method, route pattern (or unmatched) and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: this.registers,
  });
  private readonly requestDuration = new Histogram({ name: 'gc_http_request_duration_seconds', help: 'HTTP request duration.', buckets: BUCKETS, registers: this.registers });
  private readonly compress = new Histogram({
    name: 'gc_compress_duration_seconds',
    help: 'Compression duration by endpoint.',
    labelNames: ['endpoint'] as const,
    buckets: BUCKETS,
    registers: this.registers,
  });
  private readonly cacheLookups = new Counter({ name: 'gc_cache_lookups_total', help: 'Semantic cache lookups by result.', labelNames: ['result'] as const, registers: this.registers });
  private readonly cache = { hits: 0, misses: 0 };

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.requestDuration.observe(seconds);
  }

  /** The spec's gc_compress_duration_seconds, per endpoint. */
  observeCompress(endpoint: string, seconds: number): void {
    this.compress.observe({ endpoint }, seconds);
  }

  observeCache(hit: boolean): void {
    if (hit) this.cache.hits++;
    else this.cache.misses++;
    this.cacheLookups.inc({ result: hit ? 'hit' : 'miss' });
  }

  /** Share of cache lookups that hit, or null before the first lookup. */
  cacheHitRate(): number | null {
    const total = this.cache.hits + this.cache.misses;
    return total === 0 ? null : this.cache.hits / total;
  }

  /** A gauge read when scraped. */
  addGauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: this.registers,
      collect() {
        this.set(read());
      },
    });
  }

  /** A constant `name{labels} 1` series describing the process (the Prometheus info-metric pattern). */
  setInfo(name: string, help: string, info: Record<string, string>): void {
    new Gauge({ name, help, labelNames: Object.keys(info), registers: this.registers }).set(info, 1);
  }

  /** OpenMetrics when the Accept header asks for it, else the Prometheus text format 0.0.4. */
  async render(accept = ''): Promise<{ body: string; contentType: string }> {
    const format: Format = accept.includes('application/openmetrics-text') ? 'openmetrics' : 'prometheus';
    const merged = Registry.merge([this.registries[format], processSeries()[format]]);
    return { body: await merged.metrics(), contentType: CONTENT_TYPE[format] };
  }
}
