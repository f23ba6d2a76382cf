// Response schemas (issues 47, 49): every REST route that answers JSON declares its success body's
// schema, /openapi.json publishes it, and under test (RESPONSE_CHECK=1, vitest.config.ts) a body off
// its schema is a 500 naming the route.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute, JSON_TYPE, responseIssues, withResponseCheck, type RouteSpec } from '../../src/http/route.js';
import { HttpError } from '../../src/http/errors.js';
import { allRoutes } from '../../src/routes/index.js';
import { buildOpenApi } from '../../src/routes/openapi.js';

/**
 * Routes that answer JSON without a declared schema, each with why. Keep this short: a new route
 * belongs here only when its body is not ours to describe.
 */
const NO_SCHEMA: Record<string, string> = {};

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const answersJson = (r: RouteSpec<any, any>) => r.doc?.status !== 204 && JSON_TYPE.test(r.doc?.contentType ?? 'application/json');

/** Success responses of the document: [operation, covered]. Not JSON (text, HTML, SSE) or 204 counts as covered by its type. */
function successResponses(doc: any): [string, boolean][] {
  const out: [string, boolean][] = [];
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      for (const [status, res] of Object.entries<any>(op.responses)) {
        if (!/^2\d\d$/.test(status)) continue;
        const contents = Object.entries<any>(res.content ?? {});
        const covered = contents.every(([type, c]) => !JSON_TYPE.test(type) || Object.keys(c.schema ?? {}).length > 0);
        out.push([`${method.toUpperCase()} ${path} ${status}`, covered]);
      }
    }
  }
  return out;
}

describe('response schemas', () => {
  it('every route answering JSON declares its response schema (or is a listed exception)', () => {
    const missing = allRoutes.filter((r) => answersJson(r) && !r.response && !(key(r) in NO_SCHEMA)).map(key);
    expect(missing, `routes answering JSON without a response schema:\n${missing.join('\n')}`).toEqual([]);
    const stale = Object.keys(NO_SCHEMA).filter((k) => allRoutes.some((r) => key(r) === k && r.response));
    expect(stale, 'exceptions that now declare a schema').toEqual([]);
  });

  it('/openapi.json has a schema for at least 95% of its success responses', () => {
    const responses = successResponses(buildOpenApi(allRoutes, 'http://localhost', 'test'));
    const uncovered = responses.filter(([, ok]) => !ok).map(([name]) => name);
    expect(responses.length).toBeGreaterThanOrEqual(allRoutes.length);
    expect((responses.length - uncovered.length) / responses.length, `without a schema:\n${uncovered.join('\n')}`).toBeGreaterThanOrEqual(0.95);
  });

  it('every response schema turns into JSON Schema', () => {
    for (const r of allRoutes.filter((x) => x.response)) {
      expect(() => z.toJSONSchema(r.response!, { io: 'output', unrepresentable: 'any', cycles: 'throw' }), key(r)).not.toThrow();
    }
  });
});

describe('the response check (RESPONSE_CHECK=1)', () => {
  const schema = z.object({ id: z.string(), created_at: z.string() });
  const route = defineRoute({ method: 'GET', path: '/t', auth: 'public', response: schema, handler: () => ({ body: { id: 1 } }) });
  const errors: unknown[] = [];
  const ctx = { requestId: 'r1', services: { log: { error: (...a: unknown[]) => errors.push(a) } } } as any;

  it('is on for this test run', () => {
    expect(process.env.RESPONSE_CHECK).toBe('1');
  });

  it('reads the body as the client does (a Date is its ISO string) and skips errors, 204 and non-JSON types', () => {
    expect(responseIssues(schema, { body: { id: 'a', created_at: new Date() } })).toBeNull();
    expect(responseIssues(schema, { raw: '{"id":"a","created_at":"x"}' })).toBeNull();
    expect(responseIssues(schema, { raw: '{"id":2}' })).toMatch(/^id: .*; created_at: /);
    expect(responseIssues(schema, { status: 404, body: { detail: 'no' } })).toBeNull();
    expect(responseIssues(schema, { status: 204 })).toBeNull();
    expect(responseIssues(schema, { raw: 'text', contentType: 'text/plain' })).toBeNull();
    expect(responseIssues(schema, { body: {}, contentType: 'application/a2a+json' })).not.toBeNull();
  });

  it('answers a body off its schema as a 500 naming the route, and wraps nothing when off', async () => {
    const [checked] = withResponseCheck([route], true);
    const err = await Promise.resolve(checked!.handler(ctx)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(500);
    expect(String((err as HttpError).detail)).toMatch(/^internal_error: GET \/t .*id: /);
    expect(errors).toHaveLength(1);
    expect(withResponseCheck([route], false)[0]).toBe(route);
  });
});
