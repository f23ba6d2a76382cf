/** Prometheus text exposition for the few series this service keeps; no client library needed. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

class Histogram {
  /** Observations per bucket alone (not cumulative): one increment per observation; render() sums them. */
  private readonly own = new Array<number>(BUCKETS.length).fill(0);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    this.sum += seconds;
    this.count++;
    for (let i = 0; i < BUCKETS.length; i++) {
      if (seconds <= BUCKETS[i]!) {
        this.own[i]!++;
        return;
      }
    }
  }

  /** Prometheus buckets: observations at or under each bound. */
  get counts(): number[] {
    let running = 0;
    return this.own.map((n) => (running += n));
  }
}

function labels(obj: Record<string, string>): string {
  const parts = Object.entries(obj).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

export type GaugeSource = () => Record<string, number>;

export class Metrics {
  private readonly requests = new Map<string, { labels: Record<string, string>; value: number }>();
  private readonly requestDuration = new Histogram();
  private readonly compress = new Map<string, { labels: Record<string, string>; h: Histogram }>();
  private readonly cache = { hits: 0, misses: 0 };
  private readonly gauges: GaugeSource[] = [];
  private readonly infos = new Map<string, { help: string; info: Record<string, string> }>();

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    const entry = this.requests.get(key);
    if (entry) entry.value++;
    else this.requests.set(key, { labels: { method, route, status: String(status) }, value: 1 });
    this.requestDuration.observe(seconds);
  }

  /** The spec's gc_compress_duration_seconds, per endpoint. */
  observeCompress(endpoint: string, seconds: number): void {
    const entry = this.compress.get(endpoint) ?? { labels: { endpoint }, h: new Histogram() };
    entry.h.observe(seconds);
    this.compress.set(endpoint, entry);
  }

  observeCache(hit: boolean): void {
    if (hit) this.cache.hits++;
    else this.cache.misses++;
  }

  /** Share of cache lookups that hit, or null before the first lookup. */
  cacheHitRate(): number | null {
    const total = this.cache.hits + this.cache.misses;
    return total === 0 ? null : this.cache.hits / total;
  }

  addGauges(source: GaugeSource): void {
    this.gauges.push(source);
  }

  /** A constant `name{labels} 1` series describing the process (the Prometheus info-metric pattern). */
  setInfo(name: string, help: string, info: Record<string, string>): void {
    this.infos.set(name, { help, info });
  }

  render(): string {
    const out: string[] = [];
    out.push('# HELP gc_http_requests_total HTTP requests by method, route pattern and status.', '# TYPE gc_http_requests_total counter');
    for (const { labels: l, value } of this.requests.values()) out.push(`gc_http_requests_total${labels(l)} ${value}`);
    writeHistogram(out, 'gc_http_request_duration_seconds', 'HTTP request duration.', [{ labels: {}, h: this.requestDuration }]);
    writeHistogram(out, 'gc_compress_duration_seconds', 'Compression duration by endpoint.', [...this.compress.values()]);
    out.push('# HELP gc_cache_lookups_total Semantic cache lookups by result.', '# TYPE gc_cache_lookups_total counter');
    out.push(`gc_cache_lookups_total{result="hit"} ${this.cache.hits}`, `gc_cache_lookups_total{result="miss"} ${this.cache.misses}`);
    for (const [name, { help, info }] of this.infos) out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}${labels(info)} 1`);
    for (const source of this.gauges) {
      for (const [name, value] of Object.entries(source())) out.push(`# TYPE ${name} gauge`, `${name} ${value}`);
    }
    return out.join('\n') + '\n';
  }
}

function writeHistogram(out: string[], name: string, help: string, series: { labels: Record<string, string>; h: Histogram }[]): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
  for (const { labels: l, h } of series) {
    const counts = h.counts;
    BUCKETS.forEach((le, i) => out.push(`${name}_bucket${labels({ ...l, le: String(le) })} ${counts[i]}`));
    out.push(`${name}_bucket${labels({ ...l, le: '+Inf' })} ${h.count}`);
    out.push(`${name}_sum${labels(l)} ${h.sum}`, `${name}_count${labels(l)} ${h.count}`);
  }
}
