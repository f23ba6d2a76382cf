// Registry-driven fuzzing: every REST route and every MCP tool meets seeded malformed input (wrong
// types, missing and extra fields, huge and deeply nested values, NUL and unpaired surrogates,
// prototype-pollution keys, path traversal in ids, wrong content types, truncated and non-UTF-8
// bodies). No answer may be a 5xx or carry a stack trace, and the process must stay up. A new route
// or tool is covered by being registered.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allTools, inputJsonSchema } from '../../src/mcp/registry.js';
import { allRoutes } from '../../src/routes/index.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { objectFields } from '../helpers/zodFields.js';

/** Seeded, so a failure names a case that can be replayed; FUZZ_SEED explores other cases locally. */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const ROUTE_RUNS = 90; // × every route
const TOOL_RUNS = 80; // × every tool
const STACK = /\bat [\w.<>]+ \(|\.(?:ts|js):\d+:\d+|node:internal/;

let server: TestServer;
let cases = 0;

beforeAll(async () => {
  const unlimited = { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 };
  // Webhook secrets set, so the fuzzer reaches signature checking instead of "not configured".
  server = await startTestServer({ rateLimits: unlimited, poolTaskDeadlineMs: 20_000 }, { commerce: { identityWebhookSecret: 'whsec_fuzz_identity' } });
});
afterAll(async () => {
  await server?.close();
});

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '../../../etc/passwd', '%2e%2e%2f', '__proto__', 'constructor',
    "'; drop table users; --", '<script>', '😀'.repeat(50), 'null', 'NaN', '1e309', 'org', 'external', 'balanced', 'raw'),
  fc.string({ minLength: 2000, maxLength: 20_000 }),
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1, 9007199254740993, 1e20, -1e20, Number.MAX_SAFE_INTEGER),
);
const leaf = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));
const hostileKey = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'prototype', 'a\u0000', '\ud800'));
const { value: hostileValue } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(hostileKey, tie('value'), { maxKeys: 4 }),
}));

/** A body shaped like the schema's fields but with hostile values, or anything at all. */
function bodyFor(fields: string[]) {
  const shaped = fc.record(Object.fromEntries(fields.map((f) => [f, hostileValue])), { requiredKeys: [] });
  const deep = fc.integer({ min: 60, max: 400 }).map((d) => JSON.parse('['.repeat(d) + ']'.repeat(d)));
  return fc.oneof(shaped, hostileValue, deep);
}

/** Raw bodies no JSON parser should choke the service with. */
const rawBody = fc.oneof(
  fc.constantFrom('{"text": "unterminated', '{', 'null', '[]', '"just a string"', '{"a":1}{"b":2}', '\u0000\u0000'),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  fc.constant(Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xff, 0xfe])), // invalid UTF-8
);


const pathParam = fc.oneof(fc.uuid(), hostileString.filter((s) => s.length < 300), fc.constantFrom('..', '%00', '1e20', '-1', '0'));

function fillPath(path: string, values: string[]): string {
  let i = 0;
  // Percent-encode the UTF-8 bytes (an unpaired surrogate goes as U+FFFD, as a client would send it).
  const encode = (v: string) => Array.from(Buffer.from(v, 'utf8'), (b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  return path.replace(/(?<=\/):(\w+)/g, () => encode(values[i++] ?? 'x'));
}

function checkAnswer(where: string, status: number, text: string) {
  cases++;
  expect(status, `${where} answered ${status}: ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(text, `${where} leaked a stack trace`).not.toMatch(STACK);
}

describe(`registry-driven fuzzing (${DB_KIND})`, () => {
  it('every REST route answers malformed input with a 4xx and a detail, never a 5xx or a stack trace', async () => {
    for (const [r, route] of allRoutes.entries()) {
      const fields = [...objectFields(route.body), ...objectFields(route.query)];
      // A parameter starts a segment; a colon inside one is literal (the A2A binding's /message:send).
      const params = (route.path.match(/(?<=\/):\w+/g) ?? []).length;
      await fc.assert(
        fc.asyncProperty(
          fc.array(pathParam, { minLength: params, maxLength: params }),
          bodyFor(fields),
          fc.oneof(fc.constant(null), rawBody),
          fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
          fc.dictionary(fc.constantFrom(...(fields.length ? fields : ['x'])), hostileString.filter((s) => s.length < 200), { maxKeys: 3 }),
          async (values, body, raw, contentType, query) => {
            const qs = new URLSearchParams(query).toString();
            const path = fillPath(route.path, values) + (qs ? `?${qs}` : '');
            const res = await server.request(route.method, path, {
              ...(route.method === 'GET' || route.method === 'DELETE' ? {} : raw !== null ? { rawBody: raw } : { body }),
              headers: contentType ? { 'content-type': contentType } : {},
            });
            checkAnswer(`${route.method} ${route.path} (#${r})`, res.status, res.text);
            if (res.status >= 400) expect(res.json?.detail ?? res.json?.error, `${route.method} ${route.path}: error without detail`).toBeDefined();
          },
        ),
        { numRuns: ROUTE_RUNS, seed: SEED + r, endOnFailure: true },
      );
    }
  }, 600_000);

  it('sees every schema\'s fields (the property tests build bodies from them)', () => {
    // Same keys as the JSON Schema the tool list publishes: a zod upgrade must not blind the fuzzer.
    for (const tool of allTools()) expect(objectFields(tool.input).sort(), tool.name).toEqual(Object.keys((inputJsonSchema(tool).properties as object | undefined) ?? {}).sort());
    expect(allRoutes.filter((r) => objectFields(r.body).length > 0).length).toBeGreaterThan(20);
  });

  it('every MCP tool answers malformed arguments with a tool-level error, never an internal_error', async () => {
    for (const [t, tool] of allTools().entries()) {
      const fields = objectFields(tool.input);
      await fc.assert(
        fc.asyncProperty(bodyFor(fields), async (args) => {
          const res = await fetch(`${server.url}/mcp`, {
            method: 'POST',
            headers: { authorization: `Bearer ${server.ownerKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: args } }),
          });
          const text = await res.text();
          checkAnswer(`tools/call ${tool.name} (#${t})`, res.status, text);
          if (res.status === 200) expect(text, `${tool.name}: internal_error`).not.toContain('"internal_error"');
        }),
        { numRuns: TOOL_RUNS, seed: SEED + 1000 + t, endOnFailure: true },
      );
    }
  }, 600_000);

  it('ran at least 10,000 cases and the service is still serving', async () => {
    expect(cases).toBeGreaterThanOrEqual(10_000);
    expect((await server.request('GET', '/health/liveness')).status).toBe(200);
    const after = await server.request('POST', '/v1/compress', { body: { text: 'Still serving after the fuzzing.' } });
    expect(after.status).toBe(200);
  });
});
