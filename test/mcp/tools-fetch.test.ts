import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPublicHttps, type SafeFetchOptions } from '../../src/domain/platform/ssrf.js';

// A real HTTPS fetch against a local server. Loopback is admitted only through the explicit
// testHooks option of fetchPublicHttps (never used by the service), with a throwaway certificate.
let server: Server;
let port: number;
let dir: string;
let ca: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gc-fetch-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=docs.test',
    '-addext', 'subjectAltName=DNS:docs.test,DNS:other.test',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  ca = readFileSync(join(dir, 'cert.pem'));
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: ca }, (req, res) => {
    const host = req.headers.host;
    switch (req.url) {
      case '/doc.md':
        res.writeHead(200, { 'content-type': 'text/markdown' }).end(`# Fetched\n\nServed to ${host}.`);
        break;
      case '/redirect-ok':
        res.writeHead(302, { location: '/doc.md' }).end();
        break;
      case '/redirect-private':
        res.writeHead(302, { location: `https://other.test:${port}/doc.md` }).end();
        break;
      case '/redirect-http':
        res.writeHead(301, { location: `http://docs.test:${port}/doc.md` }).end();
        break;
      case '/big-declared':
        res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
        break;
      case '/big-chunked':
        res.writeHead(200);
        for (let i = 0; i < 10; i++) res.write('y'.repeat(500));
        res.end();
        break;
      case '/hang':
        break; // never answers
      default:
        res.writeHead(404).end('no');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function options(extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return {
    maxBytes: 1000,
    timeoutMs: 2000,
    resolve: async (host) => [{ address: host === 'docs.test' ? '127.0.0.1' : '10.0.0.1', family: 4 }],
    testHooks: { allowAddress: (a) => a === '127.0.0.1', ca },
    ...extra,
  };
}

describe('fetchPublicHttps against a local HTTPS server', () => {
  it('fetches over TLS with SNI, pinned to the vetted address, and follows a safe redirect', async () => {
    const r = await fetchPublicHttps(`https://docs.test:${port}/doc.md`, options());
    expect(r.text).toBe(`# Fetched\n\nServed to docs.test:${port}.`);
    expect(r.contentType).toBe('text/markdown');
    const redirected = await fetchPublicHttps(`https://docs.test:${port}/redirect-ok`, options());
    expect(redirected.finalUrl).toBe(`https://docs.test:${port}/doc.md`);
  });

  it('re-vets redirect targets: a private address or plain http is refused', async () => {
    await expect(fetchPublicHttps(`https://docs.test:${port}/redirect-private`, options())).rejects.toMatchObject({ reason: 'address' });
    await expect(fetchPublicHttps(`https://docs.test:${port}/redirect-http`, options())).rejects.toMatchObject({ reason: 'scheme' });
    await expect(fetchPublicHttps(`https://docs.test:${port}/redirect-ok`, options({ maxRedirects: 0 }))).rejects.toMatchObject({ reason: 'redirect' });
  });

  it('caps the size, with or without content-length, and times out', async () => {
    await expect(fetchPublicHttps(`https://docs.test:${port}/big-declared`, options())).rejects.toMatchObject({ reason: 'size' });
    await expect(fetchPublicHttps(`https://docs.test:${port}/big-chunked`, options())).rejects.toMatchObject({ reason: 'size' });
    await expect(fetchPublicHttps(`https://docs.test:${port}/hang`, options({ timeoutMs: 300 }))).rejects.toMatchObject({ reason: 'timeout' });
    await expect(fetchPublicHttps(`https://docs.test:${port}/missing`, options())).rejects.toMatchObject({ reason: 'status' });
  });

  it('without the hook, the same loopback server is refused', async () => {
    await expect(fetchPublicHttps(`https://docs.test:${port}/doc.md`, options({ testHooks: { ca } }))).rejects.toMatchObject({ reason: 'address' });
  });
});
