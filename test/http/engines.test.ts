// The HTTP boundary behaves the same on both engines (docs/runtime.md): every engine that loads in
// this runtime is started and asked the same questions over a real socket.
import { connect, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUws, UWS_BUILDS } from '../../src/http/engine/uwsEngine.js';
import { httpEngine } from '../../src/http/engine/select.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The engines this runtime can serve on: node:http always, uWS when some build's binary loads. */
const engines: { name: 'node' | 'uws'; answersHttp10: boolean }[] = [{ name: 'node', answersHttp10: true }];
const uws = UWS_BUILDS.find((b) => loadUws(b, () => '').ok);
if (uws) engines.push({ name: 'uws', answersHttp10: uws.answersHttp10 });

/** Sends raw bytes and resolves with everything the server sent until it closed or `until` matched. */
function rawExchange(port: number, request: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (until?.test(text)) socket.destroy();
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe.each(engines)('HTTP engine $name', ({ name, answersHttp10 }) => {
  let server: TestServer;
  let port: number;

  beforeAll(async () => {
    server = await startTestServer({ httpEngine: name, maxBodyBytes: 64 * 1024 });
    port = server.app.port;
  });
  afterAll(() => server?.close());

  it('names itself in /health/diagnostics and /metrics', async () => {
    const diag = await server.request('GET', '/health/diagnostics');
    expect(diag.json.http).toEqual({ engine: name, package: name === 'uws' ? expect.stringMatching(/@\d+\./) : null, reason: expect.any(String), node: process.version });
    expect(server.app.engine.engine).toBe(name);
    const metrics = await server.request('GET', '/metrics');
    expect(metrics.text).toMatch(new RegExp(`gc_http_engine_info\\{engine="${name}",package="[^"]*",node="${process.version}",reason="[^"]+"\\} 1`));
  });

  it('answers HEAD on every GET route with its headers and no body', async () => {
    const get = await fetch(`${server.url}/health/liveness`);
    const getBody = await get.text();
    const head = await fetch(`${server.url}/health/liveness`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json');
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(getBody)));
    expect(await head.text()).toBe('');
    // An authenticated GET route: the same status as GET, refused the same way without a key.
    const authed = await fetch(`${server.url}/v1/usage`, { method: 'HEAD', headers: { authorization: `Bearer ${server.ownerKey}` } });
    expect(authed.status).toBe((await server.request('GET', '/v1/usage')).status);
    expect((await fetch(`${server.url}/v1/usage`, { method: 'HEAD' })).status).toBe(401);
  });

  it('names HEAD in Allow when a path has a GET route, and answers 405 to HEAD on a POST-only path', async () => {
    const onGetPath = await server.request('DELETE', '/health/liveness');
    expect(onGetPath.status).toBe(405);
    expect(onGetPath.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${server.url}/v1/compress`, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
  });

  it.skipIf(!answersHttp10)('answers an HTTP/1.0 request at once, then closes', async () => {
    const reply = await rawExchange(port, 'GET /health/liveness HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n');
    // node:http serves HTTP/1.0; uWS v20.4x and later refuse it with 505 at once (docs/runtime.md).
    if (name === 'node') {
      expect(reply).toMatch(/^HTTP\/1\.[01] 200 /);
      expect(reply.endsWith('{"status":"ok"}')).toBe(true);
    } else {
      expect(reply).toMatch(/^HTTP\/1\.1 505 /);
    }
  });

  it('echoes a valid x-request-id and makes one otherwise', async () => {
    const echoed = await fetch(`${server.url}/health`, { headers: { 'x-request-id': 'trace-42.a' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-42.a');
    const made = await fetch(`${server.url}/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a request without a key from its headers alone, its large body unread', async () => {
    // 1 MiB declared, nothing sent: the answer comes without waiting for the body, and the connection closes.
    const reply = await rawExchange(port, `POST /v1/compress HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1048576\r\n\r\n`, /\r\n\r\n[\s\S]*"detail"/);
    expect(reply).toMatch(/^HTTP\/1\.1 (401|413) /);
    expect(reply).toContain('"detail"');
  });

  it('answers 413 for a declared body over the limit', async () => {
    const res = await server.request('POST', '/v1/compress', { rawBody: JSON.stringify({ text: 'x'.repeat(70 * 1024) }), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.json.detail).toMatch(/exceeds the limit of 65536 bytes/);
  });

  it('refuses to start on a port this service already holds, and on one another program holds', async () => {
    await expect(startTestServer({ httpEngine: name, port })).rejects.toThrow(/cannot listen on 127\.0\.0\.1:\d+: the port is in use/);
    const other = createServer();
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const held = (other.address() as { port: number }).port;
    try {
      await expect(startTestServer({ httpEngine: name, port: held })).rejects.toThrow(/the port is in use/);
    } finally {
      other.close();
    }
  });
});

describe('engine choice', () => {
  it('auto never picks a build that leaves HTTP/1.0 unanswered, and says why it chose', () => {
    const auto = httpEngine('auto').info;
    const passedOver = UWS_BUILDS.filter((b) => !b.answersHttp10 && loadUws(b, () => '').ok);
    if (auto.engine === 'uws') expect(auto.reason).toMatch(/has a binary for Node/);
    else expect(auto.reason).toMatch(/^no usable uWebSockets\.js build: /);
    for (const build of passedOver) expect(auto.package ?? '').not.toContain(build.dependency === 'uWebSockets.js' ? '@trufflesuite' : build.dependency);
    if (passedOver.length && auto.engine === 'node') expect(auto.reason).toContain('leaves HTTP/1.0 requests unanswered');
    expect(auto.node).toBe(process.version);
  });

  it('node is node:http whatever loads', () => {
    expect(httpEngine('node').info).toEqual({ engine: 'node', package: null, reason: 'HTTP_ENGINE=node', node: process.version });
  });
});
