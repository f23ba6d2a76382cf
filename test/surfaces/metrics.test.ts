// /metrics as the Prometheus ecosystem reads it: promtool's lint, HELP and TYPE for every series, the
// standard process_* and nodejs_* series, route and status labels for MCP, A2A and refused requests,
// and OpenMetrics when the scraper asks for it.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, ok } from '../helpers/mcp.js';
import { a2aClient, skillMessage } from '../a2a/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const promtool = spawnSync('promtool', ['--version']).status === 0;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  // One of each: a REST call, a refused REST call, an MCP tool call, an A2A message.
  expect((await server.request('POST', '/v1/compress', { body: { text: 'Metrics count this call. It has two sentences.' } })).status).toBe(200);
  expect((await server.request('POST', '/v1/compress', { body: { text: 'x' }, key: 'gc_not_a_real_key' })).status).toBe(401);
  const mcp = await connectMcp(server.url, server.ownerKey);
  await ok(mcp, 'estimate_tokens', { text: 'count me' });
  await mcp.close();
  const a2a = await a2aClient(server.url, server.ownerKey);
  await a2a.sendMessage(skillMessage('estimate_tokens', { text: 'count me too' }));
});
afterAll(() => server?.close());

const series = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));

describe('/metrics', () => {
  it.skipIf(!promtool)('passes promtool check metrics', async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    // promtool exits non-zero and names the series on any lint problem (missing HELP, bad suffix, …).
    expect(execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })).toBe('');
  });

  it('gives HELP and TYPE for every series, including the standard process and Node.js ones', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const names = new Set(text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(/[{ ]/)[0]!.replace(/_(bucket|sum|count)$/, '')));
    for (const name of names) {
      expect(text, name).toMatch(new RegExp(`^# HELP ${name} \\S`, 'm'));
      expect(text, name).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge|histogram|summary)$`, 'm'));
    }
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'gc_pool_threads', 'gc_pool_queue_size']) {
      expect(series(text, name).length, name).toBeGreaterThan(0);
    }
  });

  it('labels MCP, A2A and refused requests with their route and the status sent', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const requests = series(text, 'gc_http_requests_total');
    expect(requests).toContainEqual(expect.stringMatching(/^gc_http_requests_total\{method="POST",route="\/v1\/compress",status="200"\} 1$/));
    expect(requests).toContainEqual(expect.stringMatching(/^gc_http_requests_total\{method="POST",route="\/v1\/compress",status="401"\} 1$/));
    expect(requests).toContainEqual(expect.stringMatching(/^gc_http_requests_total\{method="POST",route="\/mcp",status="200"\} [1-9]\d*$/));
    expect(requests).toContainEqual(expect.stringMatching(/^gc_http_requests_total\{method="POST",route="[^"]*\/message:send",status="200"\} 1$/));
    expect(requests.filter((l) => /status="0"|route="error"/.test(l))).toEqual([]);
  });

  it('answers OpenMetrics when asked', async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: { accept: 'application/openmetrics-text; version=1.0.0,text/plain;q=0.5' } });
    expect(res.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    const text = await res.text();
    expect(text.trimEnd().endsWith('# EOF')).toBe(true);
    expect(text.match(/^# EOF$/gm)).toHaveLength(1);
    // OpenMetrics names a counter family without its _total suffix.
    expect(text).toMatch(/^# TYPE gc_http_requests counter$/m);
  });
});
