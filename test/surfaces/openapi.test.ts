// /openapi.json (issue 24): generated from the route registry and the zod schemas, valid OpenAPI 3.1
// by an outside validator (@redocly/cli, run offline), and naming every registered route.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../src/routes/index.js';
import { openApiPath } from '../../src/routes/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const REDOCLY = join(process.cwd(), 'node_modules/.bin/redocly');
/** No network for the validator when the machine allows it (a user namespace without interfaces). */
const OFFLINE = spawnSync('unshare', ['-rn', 'true']).status === 0 ? ['unshare', '-rn'] : [];

/** Path with parameter names blanked, so `/tasks/{task_id}` and `/tasks/:task_operation` compare equal. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}').split('/').map((s) => (s.startsWith(':') ? '{}' : s)).join('/');

let server: TestServer;
let doc: any;

beforeAll(async () => {
  server = await startTestServer();
  const res = await server.request('GET', '/openapi.json', { key: null });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = res.json;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('/openapi.json', () => {
  it('is valid OpenAPI 3.1 for @redocly/cli lint (recommended rules, no network)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-openapi-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const [cmd, ...pre] = OFFLINE.length ? OFFLINE : [REDOCLY];
    const args = OFFLINE.length ? [...pre, REDOCLY, 'lint', file, '--format', 'json'] : ['lint', file, '--format', 'json'];
    const run = spawnSync(cmd!, args, {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
    const errors = (report.problems as { severity: string; ruleId: string; message: string }[]).filter((p) => p.severity === 'error');
    expect(errors, JSON.stringify(errors, null, 2)).toEqual([]);
    expect(run.status, run.stderr).toBe(0);
    expect(report.totals.errors).toBe(0);
  }, 90_000);

  it('names every route of the router, with its method, path parameters and auth', () => {
    expect(doc.openapi).toBe('3.1.0');
    const paths = new Map(Object.keys(doc.paths).map((p) => [shape(p), p]));
    const missing: string[] = [];
    for (const route of allRoutes) {
      const key = paths.get(shape(route.path));
      const op = key ? doc.paths[key][route.method.toLowerCase()] : undefined;
      if (!op) {
        missing.push(`${route.method} ${route.path}`);
        continue;
      }
      const params = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      expect(params.length, `${route.method} ${route.path}`).toBe(route.path.split('/').filter((s) => s.startsWith(':')).length);
      if (route.auth === 'public') expect(op.security, `${route.method} ${route.path} is public`).toEqual([]);
      else expect(op.security).toEqual([{ bearerAuth: [] }]);
      if (route.body) expect(op.requestBody?.content?.['application/json']?.schema, `${route.method} ${route.path} body`).toBeTruthy();
      if (route.plan) expect(op['x-plan']).toEqual(route.plan);
    }
    expect(missing).toEqual([]);
    const operations = Object.values(doc.paths).reduce((n: number, p: any) => n + Object.keys(p).length, 0);
    expect(operations).toBe(allRoutes.length);
    expect(openApiPath('/v1/keys/:key_id/rotate')).toBe('/v1/keys/{key_id}/rotate');
    expect(doc.paths['/openapi.json'].get.security).toEqual([]);
  });

  it('describes auth, the error shape and examples', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.Error.required).toEqual(['detail']);
    expect(doc.components.schemas.HTTPValidationError.properties.detail.type).toBe('array');
    const compress = doc.paths['/v1/compress'].post;
    expect(compress.requestBody.content['application/json'].schema.required).toEqual(['text']);
    expect(compress.requestBody.content['application/json'].example.text).toBeTruthy();
    expect(compress.responses['422'].$ref).toBe('#/components/responses/ValidationError');
    expect(compress.responses['401'].$ref).toBe('#/components/responses/Unauthorized');
    expect(doc.paths['/metrics'].get.responses['200'].content['text/plain']).toBeTruthy();
    // A query schema becomes query parameters.
    const withQuery = allRoutes.find((r) => r.query && r.method === 'GET')!;
    const op = doc.paths[[...Object.keys(doc.paths)].find((p) => shape(p) === shape(withQuery.path))!].get;
    expect(op.parameters.some((p: any) => p.in === 'query')).toBe(true);
    // The server is where the request came from.
    expect(doc.servers[0].url).toBe(server.url);
  });

  it('the example request of POST /v1/compress is accepted by the route', async () => {
    const example = doc.paths['/v1/compress'].post.requestBody.content['application/json'].example;
    const res = await server.request('POST', '/v1/compress', { body: example });
    expect(res.status).toBe(200);
  }, 30_000);

  // OpenAPI matches a concrete path (`/v1/webhooks/billing`) before a templated one (`/v1/webhooks/{webhook_id}`);
  // two templated paths that fit one URL have no such rule.
  it('no URL fits two templated paths: where shapes coincide, a literal segment fails the other path parameter\'s pattern', () => {
    type Segment = { literal: string } | { pattern: RegExp | null };
    const segments = (path: string): Segment[] => {
      const op = Object.values(doc.paths[path])[0] as { parameters?: { name: string; in: string; schema?: { pattern?: string } }[] };
      return path.split('/').map((s) => {
        if (!s.startsWith('{')) return { literal: s };
        const p = op.parameters?.find((x) => x.in === 'path' && x.name === s.slice(1, -1))?.schema?.pattern;
        return { pattern: p ? new RegExp(p) : null };
      });
    };
    const fits = (a: Segment, b: Segment): boolean =>
      'literal' in a && 'literal' in b ? a.literal === b.literal : 'literal' in a ? !(b as { pattern: RegExp | null }).pattern || (b as { pattern: RegExp }).pattern.test(a.literal) : 'literal' in b ? fits(b, a) : true;
    const paths = Object.keys(doc.paths).filter((p) => p.includes('{'));
    const ambiguous: string[] = [];
    for (let i = 0; i < paths.length; i++) {
      for (let j = i + 1; j < paths.length; j++) {
        const [a, b] = [segments(paths[i]!), segments(paths[j]!)];
        if (a.length === b.length && a.every((s, k) => fits(s, b[k]!))) ambiguous.push(`${paths[i]} ~ ${paths[j]}`);
      }
    }
    expect(ambiguous).toEqual([]);
    // The pair that looked alike before key ids and confirm tokens were published as patterns.
    expect(doc.paths['/v1/keys/{key_id}/rotate'].post.parameters.find((p: { name: string }) => p.name === 'key_id').schema.pattern).toBe('^key_[0-9a-f]{16}$');
  });
});
