// What the service reports on /metrics, read by tests that wait on it instead of on the clock.
import type { Services } from '../../src/services.js';

/**
 * The value of series `name` in /metrics text, summed over its series whose labels contain `labels`
 * (e.g. `route="/v1/batch-compress"`): 0 when none has been recorded yet. Throws when the text does
 * not declare `name` at all, so a renamed series cannot read as 0.
 */
export function metricValue(text: string, name: string, labels = ''): number {
  if (!new RegExp(`^# TYPE ${name} `, 'm').test(text)) throw new Error(`/metrics declares no ${name}`);
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))) if ((m[1] ?? '').includes(labels)) sum += Number(m[2]);
  return sum;
}

/** The in-process app's series `name` (metricValue), without an HTTP request. */
export async function appMetric(services: Pick<Services, 'metrics'>, name: string, labels = ''): Promise<number> {
  return metricValue((await services.metrics.render()).body, name, labels);
}
