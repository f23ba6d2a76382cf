/** A small typed router: literal segments and `:param` segments; 404 vs 405 decided here. */
export interface Match<H> {
  handler: H;
  params: Record<string, string>;
  pattern: string;
}

interface Route<H> {
  method: string;
  pattern: string;
  segments: string[];
  handler: H;
}

export type RouteResult<H> = { kind: 'found'; match: Match<H> } | { kind: 'method-not-allowed'; allow: string[] } | { kind: 'not-found' };

export class Router<H> {
  private readonly routes: Route<H>[] = [];
  private readonly exact = new Map<string, Route<H>>();

  add(method: string, pattern: string, handler: H): void {
    const route = { method: method.toUpperCase(), pattern, segments: split(pattern), handler };
    if (this.routes.some((r) => r.method === route.method && r.pattern === pattern)) {
      throw new Error(`duplicate route ${method} ${pattern}`);
    }
    this.routes.push(route);
    if (!pattern.includes(':')) this.exact.set(`${route.method} ${pattern}`, route);
  }

  find(method: string, path: string): RouteResult<H> {
    const fast = this.exact.get(`${method} ${path}`);
    if (fast) return { kind: 'found', match: { handler: fast.handler, params: {}, pattern: fast.pattern } };
    const segments = split(path);
    const allow: string[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method === method) return { kind: 'found', match: { handler: route.handler, params, pattern: route.pattern } };
      allow.push(route.method);
    }
    return allow.length ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
  }

  list(): { method: string; pattern: string }[] {
    return this.routes.map(({ method, pattern }) => ({ method, pattern }));
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function matchSegments(pattern: string[], path: string[]): Record<string, string> | null {
  if (pattern.length !== path.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(path[i]!);
      } catch {
        return null;
      }
    } else if (p !== path[i]) return null;
  }
  return params;
}
