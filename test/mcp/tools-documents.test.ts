import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { evidenceFor, splitIntoNodes } from '../../src/domain/compression/documents.js';
import { FetchRefusedError, fetchPublicHttps, isPublicAddress, vetHost } from '../../src/domain/platform/ssrf.js';
import { createUser } from '../../src/domain/identity/users.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let owner: Client;
let other: Client;

beforeAll(async () => {
  server = await startTestServer();
  owner = await connectMcp(server.url, server.ownerKey);
  const user = await createUser(server.app.services.db, { plan: 'free' });
  other = await connectMcp(server.url, (await createApiKey(server.app.services.db, { userId: user.id, plan: 'free' })).key, 'other-client');
});
afterAll(async () => {
  await owner?.close();
  await other?.close();
  await server?.close();
});

const doc = sampleDocument();
const NODES = splitIntoNodes(doc).length;

describe('document splitting (pure)', () => {
  it('splits by headings into exact slices, ignoring headings inside code fences', () => {
    const text = 'Intro line.\n\n# One\n\nAlpha text.\n\n```\n# not a heading\n\ncode\n```\n\n## Two\nBeta text.\n';
    const nodes = splitIntoNodes(text);
    expect(nodes.map((n) => n.heading)).toEqual([null, 'One', 'Two']);
    expect(nodes.map((n) => n.text).join('')).toBe(text);
    expect(nodes[1]!.text).toContain('# not a heading');
  });

  it('groups blank-line blocks when there are no headings and splits long sections', () => {
    const para = (i: number) => `Paragraph ${i} says something specific about topic ${i}. `.repeat(4);
    const text = Array.from({ length: 30 }, (_, i) => para(i)).join('\n\n');
    const nodes = splitIntoNodes(text);
    expect(nodes.length).toBeGreaterThan(3);
    expect(nodes.every((n) => n.heading === null)).toBe(true);
    expect(nodes.map((n) => n.text).join('')).toBe(text);
    const long = `# Big\n\n${text}`;
    const parts = splitIntoNodes(long);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts[1]!.heading).toBe('Big (part 2)');
    expect(parts.map((n) => n.text).join('')).toBe(long);
  });

  it('flags insufficient evidence when no node covers half of the query terms', () => {
    const nodes = [
      { node_id: 'n1', heading: 'Configuration', content: 'Set PORT to change the listening port; the default is 8080.' },
      { node_id: 'n2', heading: 'Authentication', content: 'Keys are stored as SHA-256 hashes.' },
    ];
    expect(evidenceFor('which port is the default listening port', nodes)).toMatchObject({ evidence_insufficient: false, best_node_id: 'n1' });
    const weak = evidenceFor('kubernetes helm chart ingress annotations', nodes);
    expect(weak.evidence_insufficient).toBe(true);
    expect(weak.best_coverage).toBeLessThan(0.5);
  });
});

describe('SSRF protection (pure)', () => {
  it('classifies addresses', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a00:1', '224.0.0.1', '2001:db8::1']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(a), a).toBe(true);
  });

  it('refuses names that resolve to private addresses, and local names', async () => {
    await expect(vetHost('localhost')).rejects.toMatchObject({ reason: 'address' });
    await expect(vetHost('db.localhost')).rejects.toMatchObject({ reason: 'address' });
    await expect(vetHost('internal.example', async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }])).rejects.toMatchObject({ reason: 'address' });
    await expect(vetHost('public.example', async () => [{ address: '93.184.216.34', family: 4 }])).resolves.toMatchObject({ address: '93.184.216.34' });
  });

  it('refuses plain http and private literals before any connection', async () => {
    const opts = { maxBytes: 1000, timeoutMs: 1000 };
    await expect(fetchPublicHttps('http://example.com/a.md', opts)).rejects.toBeInstanceOf(FetchRefusedError);
    await expect(fetchPublicHttps('https://127.0.0.1/a.md', opts)).rejects.toMatchObject({ reason: 'address' });
    await expect(fetchPublicHttps('https://[::1]/a.md', opts)).rejects.toMatchObject({ reason: 'address' });
    await expect(fetchPublicHttps('file:///etc/passwd', opts)).rejects.toMatchObject({ reason: 'scheme' });
  });
});

describe(`ingested documents over MCP (${DB_KIND})`, () => {
  let fileId: string;

  it('ingests inline text and returns a skeleton with nodes', async () => {
    const r = await call(owner, 'ingest_context', { text: doc, file_path: 'docs/guide.md', metadata: { team: 'docs' } });
    expect(r.isError).toBe(false);
    fileId = r.data.file_id;
    expect(r.data).toMatchObject({ status: 'created', name: 'guide.md', file_path: 'docs/guide.md', source: 'inline', metadata: { team: 'docs' }, fidelity: 'balanced' });
    expect(NODES).toBeGreaterThan(10);
    expect(r.data.node_count).toBe(NODES);
    expect(r.data.nodes[0]).toMatchObject({ id: 'n1', heading: 'Installation', level: 2 });
    expect(r.data.total_tokens).toBe(r.data.nodes.reduce((s: number, n: { tokens: number }) => s + n.tokens, 0));
    expect(r.data.skeleton_tokens).toBeLessThan(r.data.total_tokens * 0.5);
    expect(r.data.skeleton).toContain('Installation');
  });

  it('tracks file_path: same content is unchanged, new content updates in place', async () => {
    const same = await call(owner, 'ingest_context', { text: doc, file_path: 'docs/guide.md' });
    expect(same.data).toMatchObject({ file_id: fileId, status: 'unchanged' });
    const changed = await call(owner, 'ingest_context', { text: `${doc}\n\n## Appendix\n\nOne more section about backups.`, file_path: 'docs/guide.md' });
    expect(changed.data).toMatchObject({ file_id: fileId, status: 'updated', node_count: NODES + 1, metadata: { team: 'docs' } });
    // Concurrent first ingests of one new path end in one document.
    const racing = await Promise.all([1, 2, 3].map(() => call(owner, 'ingest_context', { text: 'Race body.', file_path: 'race.md' })));
    expect(racing.every((r) => !r.isError)).toBe(true);
    expect(new Set(racing.map((r) => r.data.file_id)).size).toBe(1);
    expect((await call(owner, 'delete_document', { file_id: racing[0]!.data.file_id })).data.deleted).toBe(true);
  });

  it('refuses unsafe URLs with fetch_refused and validates exclusive inputs', async () => {
    for (const url of ['http://example.com/x.md', 'https://127.0.0.1/x', 'https://10.0.0.8/x', 'https://[::1]/x', 'https://localhost/x', 'https://169.254.169.254/latest/meta-data']) {
      const r = await call(owner, 'ingest_context', { file_url: url });
      expect(r.isError, url).toBe(true);
      expect(r.data.error, url).toBe('fetch_refused');
    }
    const both = await call(owner, 'ingest_context', { text: 'x', file_url: 'https://example.com' });
    expect(both.data.error).toBe('validation_error');
    const none = await call(owner, 'ingest_context', {});
    expect(none.data.error).toBe('validation_error');
    const blank = await call(owner, 'ingest_context', { text: '   \n\n  ' });
    expect(blank.data.error).toBe('validation_error');
  });

  it('lists documents and stats, owner-scoped', async () => {
    const list = await call(owner, 'list_documents', {});
    expect(list.data.total).toBe(1);
    expect(list.data.documents[0]).toMatchObject({ file_id: fileId, node_count: NODES + 1, file_path: 'docs/guide.md' });
    expect(Date.parse(list.data.documents[0].ingested_at)).not.toBeNaN();
    const [stored] = await server.app.services.db.query<{ t: string }>('select jsonb_typeof(metadata) as t from documents where id = $1', [fileId]);
    expect(stored!.t).toBe('object');
    const stats = await call(owner, 'get_stats', {});
    expect(stats.data).toMatchObject({ document_count: 1, node_count: NODES + 1, tracked_files: 1, by_source: { inline: 1, url: 0 } });
    const one = await call(owner, 'get_stats', { file_id: fileId });
    expect(one.data.nodes).toHaveLength(NODES + 1);
    const theirs = await call(other, 'list_documents', {});
    expect(theirs.data).toMatchObject({ total: 0, documents: [] });
    const theirStats = await call(other, 'get_stats', { file_id: fileId });
    expect(theirStats.data.error).toBe('not_found');
  });

  it('reads skeletons in every selection mode', async () => {
    const auto = await call(owner, 'read_skeleton', { file_id: fileId });
    expect(auto.data).toMatchObject({ selection_mode: 'auto', selection_mode_resolved: 'baseline', query: null });
    expect(auto.data.skeleton_tokens).toBeLessThan(auto.data.original_tokens);
    const autoQ = await call(owner, 'read_skeleton', { file_id: fileId, query: 'retry after 503' });
    expect(autoQ.data.selection_mode_resolved).toBe('query_guided');
    expect(autoQ.data.skeleton).toContain('503');
    const ev = await call(owner, 'read_skeleton', { file_id: fileId, selection_mode: 'evidence_aware', query: 'what does a 413 status mean' });
    expect(ev.data).toMatchObject({ selection_mode_resolved: 'evidence_aware', evidence_insufficient: false });
    const weak = await call(owner, 'read_skeleton', { file_id: fileId, selection_mode: 'evidence_aware', query: 'kubernetes helm chart annotations' });
    expect(weak.data.evidence_insufficient).toBe(true);
    const noQuery = await call(owner, 'read_skeleton', { file_id: fileId, selection_mode: 'query_guided' });
    expect(noQuery.data.error).toBe('validation_error');
    const badMode = await call(owner, 'read_skeleton', { file_id: fileId, selection_mode: 'semantic' });
    expect(badMode.data.error).toBe('validation_error');
  });

  it('modulates regions at every level with per-node budgets', async () => {
    const raw = await call(owner, 'modulate_region', { file_id: fileId, fidelity: 'RAW', node_ids: ['n1', 'n2'] });
    const nodes = splitIntoNodes(doc);
    expect(raw.data.nodes.map((n: { text: string }) => n.text)).toEqual([nodes[0]!.text, nodes[1]!.text]);
    const target = { ABSTRACT: 10, OUTLINE: 30, STRUCTURE: 50, DETAILED: 100 } as const;
    for (const level of Object.keys(target) as (keyof typeof target)[]) {
      const started = performance.now();
      const r = await call(owner, 'modulate_region', { file_id: fileId, fidelity: level });
      const ms = performance.now() - started;
      expect(r.isError, level).toBe(false);
      expect(r.data.nodes).toHaveLength(NODES + 1);
      for (const n of r.data.nodes) {
        expect(n.tokens, `${level} ${n.id} ${n.method}`).toBeLessThanOrEqual(Math.max(Math.ceil(target[level] * 1.3), 0) + (n.method === 'compressed' ? 10 : 0));
        if (n.original_tokens <= target[level]) expect(n.method).toBe('verbatim');
      }
      expect(r.data.output_tokens).toBeLessThan(r.data.original_tokens);
      console.log(`modulate_region ${level}: ${r.data.nodes.length} nodes, ${r.data.pool_tasks} pool tasks, ${ms.toFixed(1)} ms`);
    }
    const lower = await call(owner, 'modulate_region', { file_id: fileId, fidelity: 'outline', limit: 5, offset: 0 });
    expect(lower.data).toMatchObject({ fidelity: 'OUTLINE', next_offset: 5 });
    const missing = await call(owner, 'modulate_region', { file_id: fileId, node_ids: ['n999'] });
    expect(missing.data).toMatchObject({ error: 'not_found', missing_node_ids: ['n999'] });
    const badLevel = await call(owner, 'modulate_region', { file_id: fileId, fidelity: 'SUMMARY' });
    expect(badLevel.data.error).toBe('validation_error');
  });

  it("treats another user's file_id as not found everywhere", async () => {
    for (const [tool, args] of [
      ['read_skeleton', { file_id: fileId }],
      ['modulate_region', { file_id: fileId }],
      ['delete_document', { file_id: fileId }],
      ['get_stats', { file_id: fileId }],
    ] as const) {
      const r = await call(other, tool, args);
      expect(r.data.error, tool).toBe('not_found');
    }
    const bad = await call(owner, 'read_skeleton', { file_id: 'not-a-uuid' });
    expect(bad.data.error).toBe('validation_error');
  });

  it('records ingest_context as mcp_advisory and read_skeleton as MCP with token counts', async () => {
    await server.app.services.background.drain();
    const rows = await server.app.services.db.query<{ tool_name: string; method: string; input_tokens: number; output_tokens: number }>(
      `select tool_name, method, input_tokens, output_tokens from usage_events where tool_name in ('ingest_context', 'read_skeleton', 'list_documents') and status = 'success'`,
    );
    expect(rows.filter((r) => r.tool_name === 'ingest_context').every((r) => r.method === 'mcp_advisory')).toBe(true);
    expect(rows.filter((r) => r.tool_name === 'list_documents').every((r) => r.method === 'mcp_advisory')).toBe(true);
    const skeleton = rows.filter((r) => r.tool_name === 'read_skeleton');
    expect(skeleton.length).toBeGreaterThan(0);
    expect(skeleton.every((r) => r.method === 'MCP' && r.input_tokens > r.output_tokens && r.output_tokens > 0)).toBe(true);
  });

  it('deletes permanently', async () => {
    const del = await call(owner, 'delete_document', { file_id: fileId });
    expect(del.data).toEqual({ file_id: fileId, deleted: true });
    const again = await call(owner, 'delete_document', { file_id: fileId });
    expect(again.data.error).toBe('not_found');
    const [n] = await server.app.services.db.query<{ n: number }>('select count(*)::int as n from document_nodes');
    expect(n!.n).toBe(0);
  });
});
