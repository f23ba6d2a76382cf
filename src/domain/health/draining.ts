// Graceful rolling restart (docs/deployment.md): from SIGTERM on, readiness answers 503 so the load
// balancer takes the instance out of rotation while it still serves what reaches it.
const draining = new WeakSet<object>();
/** When each app last answered a readiness probe: whether anything watches it, hence whether to wait. */
const probedAt = new WeakMap<object, number>();

/** `services` of the app that stops: its readiness turns 503 from now on. */
export function startDraining(services: object): void {
  draining.add(services);
}

export function isDraining(services: object): boolean {
  return draining.has(services);
}

export function noteReadinessProbe(services: object): void {
  probedAt.set(services, Date.now());
}

/**
 * How long to keep serving with readiness 503 before closing: `drainMs` when a probe came within the
 * last `drainMs` (a balancer watches and needs that long to see the 503), else 0 (nobody would notice).
 */
export function drainWait(services: object, drainMs: number): number {
  const last = probedAt.get(services);
  return last !== undefined && Date.now() - last <= drainMs ? drainMs : 0;
}
