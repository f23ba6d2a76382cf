// SSRF: every feature that fetches a caller's URL refuses loopback, private, link-local and metadata
// addresses in all their spellings — decimal, hex, octal and short IPv4, IPv6 literals, IPv4-mapped,
// NAT64 and 6to4 forms, local host names, DNS names that resolve to such addresses, and redirects to
// any of them. The features are found in the registries (any body or tool field named like a URL),
// so a new URL-taking route or tool fails here until it is in FEATURES.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchRefusedError, fetchPublicHttps, isPublicAddress } from '../../src/domain/platform/ssrf.js';
import { allTools, inputJsonSchema } from '../../src/mcp/registry.js';
import { allRoutes } from '../../src/routes/index.js';
import { makeTenant } from '../kb/helpers.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { objectFields } from '../helpers/zodFields.js';

/** Each spelling names a loopback, private, link-local or metadata address. */
const SPELLINGS: [string, string][] = [
  ['https://127.0.0.1/', 'loopback'],
  ['https://127.1/', 'loopback, short form'],
  ['https://2130706433/', 'loopback, decimal'],
  ['https://0x7f000001/', 'loopback, hex'],
  ['https://0x7f.0.0.1/', 'loopback, hex octet'],
  ['https://0177.0.0.1/', 'loopback, octal'],
  ['https://127.000.000.001/', 'loopback, zero-padded'],
  ['https://localhost/', 'local name'],
  ['https://LocalHost./', 'local name, mixed case and trailing dot'],
  ['https://api.localhost/', 'local subdomain'],
  ['https://[::1]/', 'IPv6 loopback'],
  ['https://[0:0:0:0:0:0:0:1]/', 'IPv6 loopback, long form'],
  ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
  ['https://[::ffff:7f00:1]/', 'IPv4-mapped loopback, hex'],
  ['https://[::127.0.0.1]/', 'IPv4-compatible loopback'],
  ['https://0.0.0.0/', 'unspecified'],
  ['https://0/', 'unspecified, decimal'],
  ['https://[::]/', 'IPv6 unspecified'],
  ['https://10.0.0.1/', 'private 10/8'],
  ['https://172.16.5.4/', 'private 172.16/12'],
  ['https://192.168.1.1/', 'private 192.168/16'],
  ['https://3232235777/', 'private 192.168.1.1, decimal'],
  ['https://0xc0a80101/', 'private 192.168.1.1, hex'],
  ['https://100.64.0.1/', 'shared address space'],
  ['https://[fd00::1]/', 'IPv6 unique local'],
  ['https://[fe80::1]/', 'IPv6 link-local'],
  ['https://169.254.169.254/latest/meta-data/', 'cloud metadata'],
  ['https://2852039166/latest/meta-data/', 'cloud metadata, decimal'],
  ['https://0xa9fea9fe/', 'cloud metadata, hex'],
  ['https://[::ffff:169.254.169.254]/', 'cloud metadata, IPv4-mapped'],
  ['https://[::ffff:a9fe:a9fe]/', 'cloud metadata, IPv4-mapped hex'],
  ['https://[64:ff9b::a9fe:a9fe]/', 'cloud metadata, NAT64'],
  ['https://[2002:a9fe:a9fe::]/', 'cloud metadata, 6to4'],
  ['https://[fd00:ec2::254]/', 'AWS IPv6 metadata'],
  ['https://metadata.google.internal/computeMetadata/v1/', 'GCP metadata name'],
  ['https://printer.local/', 'mDNS name'],
];

/** Not an address question: refused for scheme or form before any lookup. */
const OTHER_REFUSALS: [string, string][] = [
  ['http://example.com/', 'scheme'],
  ['file:///etc/passwd', 'scheme'],
  ['gopher://127.0.0.1:6379/_INFO', 'scheme'],
  ['https://user:secret@example.com/', 'invalid_url'],
];

/** Host names this machine's resolver maps to non-public addresses (from /etc/hosts), besides localhost. */
const RESOLVING_PRIVATE = readFileSync('/etc/hosts', 'utf8')
  .split('\n')
  .map((line) => line.replace(/#.*/, '').trim().split(/\s+/))
  .filter(([address, ...names]) => address && names.length > 0 && !isPublicAddress(address))
  .flatMap(([, ...names]) => names)
  .filter((name) => !/localhost/i.test(name) && !/\.(local|internal)$/i.test(name) && /^[a-z0-9.-]+$/i.test(name));

const refusal = (err: unknown) => (err instanceof FetchRefusedError ? err.reason : `not refused: ${String(err)}`);
const tryFetch = (url: string, options: Partial<Parameters<typeof fetchPublicHttps>[1]> = {}) =>
  fetchPublicHttps(url, { maxBytes: 10_000, timeoutMs: 3000, ...options }).then(() => 'fetched', refusal);

describe('SSRF spellings, in the fetcher every feature uses', () => {
  it.each(SPELLINGS)('%s (%s) is refused as an address, before any connection', async (url) => {
    expect(await tryFetch(url)).toBe('address');
  });

  it.each(OTHER_REFUSALS)('%s is refused (%s)', async (url, reason) => {
    expect(await tryFetch(url)).toBe(reason);
  });

  it('DNS names that resolve to private addresses are refused, also when one answer of several is private', async () => {
    const answers: Record<string, { address: string; family: number }[]> = {
      'rebind.example': [{ address: '127.0.0.1', family: 4 }],
      'intranet.example': [{ address: '10.1.2.3', family: 4 }],
      'v6.example': [{ address: '::1', family: 6 }],
      'mapped.example': [{ address: '::ffff:169.254.169.254', family: 6 }],
      'mixed.example': [{ address: '93.184.216.34', family: 4 }, { address: '192.168.0.10', family: 4 }],
    };
    const resolve = async (host: string) => answers[host] ?? [];
    for (const host of Object.keys(answers)) expect(await tryFetch(`https://${host}/`, { resolve }), host).toBe('address');
  });

  it.runIf(RESOLVING_PRIVATE.length > 0)('names this machine resolves to loopback or private addresses (system resolver) are refused', async () => {
    for (const name of RESOLVING_PRIVATE) expect(await tryFetch(`https://${name}/`), name).toBe('address');
  });
});

describe('SSRF through redirects', () => {
  let server: Server;
  let port: number;
  let dir: string;
  let ca: Buffer;
  const targets = [...SPELLINGS.map(([url]) => url), `https://127.0.0.1:PORT/doc`];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gc-ssrf-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=docs.test', '-addext', 'subjectAltName=DNS:docs.test',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    ca = readFileSync(join(dir, 'cert.pem'));
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: ca }, (req, res) => {
      const i = Number(/^\/to\/(\d+)$/.exec(req.url ?? '')?.[1]);
      if (Number.isInteger(i) && targets[i]) res.writeHead(302, { location: targets[i]!.replace('PORT', String(port)) }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('public document');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('a public page redirecting to any private spelling is refused at the redirect (the first hop is the only address admitted)', async () => {
    for (let i = 0; i < targets.length; i++) {
      // The test server stands in for a public host: the hook admits loopback for the first lookup only.
      let lookups = 0;
      const testHooks = { ca, allowAddress: () => lookups++ === 0 };
      const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
      expect(await tryFetch(`https://docs.test:${port}/to/${i}`, { resolve, testHooks }), targets[i]).toBe('address');
    }
    // The control: the same server, no redirect, is fetched.
    let lookups = 0;
    expect(await tryFetch(`https://docs.test:${port}/doc`, { resolve: async () => [{ address: '127.0.0.1', family: 4 }], testHooks: { ca, allowAddress: () => lookups++ === 0 } })).toBe('fetched');
  });
});

/** A URL field of a registered route or tool, and how to drive it over the real surface. */
interface Feature {
  send(server: TestServer, tenant: Awaited<ReturnType<typeof makeTenant>>, url: string): Promise<{ refused: boolean; detail: string }>;
}

const FEATURES: Record<string, Feature> = {
  'POST /v1/projects/:project_id/knowledge/items url': {
    async send(server, tenant, url) {
      const res = await server.request('POST', `/v1/projects/${tenant.projectId}/knowledge/items`, { key: tenant.keyA, body: { name: 'ssrf', url } });
      return { refused: res.status === 400 || res.status === 422, detail: `${res.status} ${JSON.stringify(res.json)}` };
    },
  },
  'tool gc_kb_ingest url': {
    async send(server, tenant, url) {
      const client = await connectMcp(server.url, tenant.keyA);
      try {
        const r = await call(client, 'gc_kb_ingest', { name: 'ssrf', url });
        return { refused: r.isError, detail: JSON.stringify(r.data) };
      } finally {
        await client.close();
      }
    },
  },
  'tool gc_provider_set base_url': {
    async send(server, tenant, url) {
      const client = await connectMcp(server.url, tenant.keyA);
      try {
        const r = await call(client, 'gc_provider_set', { name: 'ssrf', api: 'openai', base_url: url });
        return { refused: r.isError, detail: JSON.stringify(r.data) };
      } finally {
        await client.close();
      }
    },
  },
  // A2A federation: a peer's base URL (its JWKS is fetched from it, share requests are sent to it) and a webhook URL.
  'POST /v1/agents/a2a-peers base_url': {
    async send(server, tenant, url) {
      const jwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'ssrf-peer' };
      const res = await server.request('POST', '/v1/agents/a2a-peers', { key: tenant.keyA, body: { name: 'ssrf', base_url: url, public_keys: [jwk] } });
      return { refused: res.status === 400 || res.status === 422, detail: `${res.status} ${JSON.stringify(res.json)}` };
    },
  },
  'POST /v1/webhooks url': {
    async send(server, tenant, url) {
      const res = await server.request('POST', '/v1/webhooks', { key: tenant.keyA, body: { url } });
      return { refused: res.status === 400 || res.status === 422, detail: `${res.status} ${JSON.stringify(res.json)}` };
    },
  },
  'tool ingest_context file_url': {
    async send(server, tenant, url) {
      const client = await connectMcp(server.url, tenant.keyA);
      try {
        const r = await call(client, 'ingest_context', { file_url: url });
        return { refused: r.isError, detail: JSON.stringify(r.data) };
      } finally {
        await client.close();
      }
    },
  },
};

/** A tool driven with the project-bound key; an error result is a refusal. */
function viaTool(tool: string, args: (url: string) => Record<string, unknown>): Feature {
  return {
    async send(server, tenant, url) {
      const client = await connectMcp(server.url, tenant.keyA);
      try {
        const r = await call(client, tool, args(url));
        return { refused: r.isError, detail: JSON.stringify(r.data) };
      } finally {
        await client.close();
      }
    },
  };
}

FEATURES['tool gc_web_lookup url'] = viaTool('gc_web_lookup', (url) => ({ url }));

/** URL targets the registry scan cannot see (nested, or under another name); each is driven the same way. */
const NESTED_FEATURES: Record<string, Feature> = {
  'tool proxy_mcp_server server.url': viaTool('proxy_mcp_server', (url) => ({ server: { url }, tool: 'echo' })),
  // Per-document results: a refused document is an error entry, the call itself succeeds.
  'tool batch_ingest_documents documents[].url': {
    async send(server, tenant, url) {
      const client = await connectMcp(server.url, tenant.keyA);
      try {
        const r = await call(client, 'batch_ingest_documents', { documents: [{ url }] });
        const doc = r.data.results?.[0];
        return { refused: r.isError || doc?.ok === false, detail: JSON.stringify(doc ?? r.data) };
      } finally {
        await client.close();
      }
    },
  },
  // A feed may be created and refused at its first sync; either refusal counts, nothing is fetched.
  'tool create_connector_feed source': {
    async send(server, tenant, url) {
      const client = await connectMcp(server.url, tenant.keyA);
      try {
        const created = await call(client, 'create_connector_feed', { type: 'rss', source: url });
        if (created.isError) return { refused: true, detail: JSON.stringify(created.data) };
        const synced = await call(client, 'sync_connector_feed', { feed_id: created.data.feed_id });
        const failed = synced.isError || synced.data.status === 'failed' || Boolean(synced.data.error);
        return { refused: failed, detail: JSON.stringify(synced.data) };
      } finally {
        await client.close();
      }
    },
  },
};

/** URL-named fields that are never fetched, and why. */
const NOT_FETCHED: Record<string, string> = {
  'tool gc_read_doc url': 'names a page of the shipped documentation index (models/docs-index); a URL not in it is not_found',
};

const URL_FIELD = /(^|_)(url|uri|href|link|endpoint)$/i;

describe(`SSRF through every URL-taking route and tool (${DB_KIND})`, () => {
  let server: TestServer;
  let tenant: Awaited<ReturnType<typeof makeTenant>>;
  beforeAll(async () => {
    // Every spelling against every feature is a few hundred calls from one key: past the per-minute limit.
    server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
    tenant = await makeTenant(server, 'team');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('every URL field in the registries is a known feature here', () => {
    const found = [
      ...allRoutes.flatMap((r) => objectFields(r.body).filter((k) => URL_FIELD.test(k)).map((k) => `${r.method} ${r.path} ${k}`)),
      ...allTools().flatMap((t) => Object.keys((inputJsonSchema(t).properties as object | undefined) ?? {}).filter((k) => URL_FIELD.test(k)).map((k) => `tool ${t.name} ${k}`)),
    ];
    expect(found.sort()).toEqual([...Object.keys(FEATURES), ...Object.keys(NOT_FETCHED)].sort());
  });

  it('a URL field that is only a lookup key answers not_found for a private spelling', async () => {
    const client = await connectMcp(server.url, tenant.keyA);
    try {
      const r = await call(client, 'gc_read_doc', { url: 'https://127.0.0.1/docs' });
      expect(r).toMatchObject({ isError: true, data: { error: 'not_found' } });
    } finally {
      await client.close();
    }
  });

  it.each([...Object.keys(FEATURES), ...Object.keys(NESTED_FEATURES)])('%s refuses every private spelling with a clear error', async (name) => {
    const feature = FEATURES[name] ?? NESTED_FEATURES[name]!;
    const spellings = [...SPELLINGS.map(([u]) => u), ...RESOLVING_PRIVATE.map((n) => `https://${n}/`), ...OTHER_REFUSALS.map(([u]) => u)];
    for (const url of spellings) {
      const { refused, detail } = await feature.send(server, tenant, url);
      expect(refused, `${url}: ${detail}`).toBe(true);
      expect(detail, url).toMatch(/refus|only https|credentials/i);
      expect(detail, url).not.toMatch(/internal_error|Internal server error|\bat \S+ \(/);
    }
  });
});
