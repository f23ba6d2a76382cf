// Secrets at rest (issue 45; the rule is in docs/reliability.md "Secrets at rest"). The real process
// is sent known secrets through every route and tool that stores text, then stopped; the database
// (every column of every table, and pg_dump on PostgreSQL or the data folder's files on PGlite) and
// the process's whole output are searched for them.
//   - The service's own secrets (API keys, a confirm token, a webhook signing secret, a customer's
//     provider key) must be nowhere: stored hashed or sealed, shown once.
//   - Credentials inside customer text may be kept only where the customer's content is the thing
//     stored (CONTENT below: documents, Knowledge Hub items, memories, prompts, ...), as sent; never in
//     usage previews, logs, audit rows or any other column. Each "as sent" CONTENT column must hold the
//     text (the writes landed), and a new column that holds it fails until it is classified here.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnUntil, stop } from '../../bench/lib/spawn.js';
import { packageRoot } from '../../src/lib/root.js';
import { openStore } from '../../src/store/index.js';
import { startReceiver } from '../federation/helpers.js';
import { waitForJob } from '../batchqueue/helpers.js';
import { call, connectMcp, ok } from '../helpers/mcp.js';
import { DB_KIND, freshDatabase } from '../helpers/server.js';

/**
 * Columns that store the customer's own content by design (table.column): "as sent" must hold the
 * text exactly (the write landed); "derived" ones (compressed views, skeletons, titles) may keep its words.
 */
const CONTENT = new Map<string, 'as sent' | 'derived'>([
  ['projects.description', 'as sent'], // POST /v1/projects
  ['fidelity_profiles.description', 'as sent'], // POST /v1/profiles
  ['kb_versions.content', 'as sent'], // Knowledge Hub items (REST and gc_kb_ingest), their chunks
  ['kb_chunks.raw_text', 'as sent'],
  ['kb_chunks.skeleton', 'derived'],
  ['documents.content', 'as sent'], // ingest_context, and its skeleton's nodes
  ['document_nodes.content', 'derived'],
  ['memories.content', 'as sent'], // add_memory (its title is its first line)
  ['memories.title', 'derived'],
  ['afm_messages.content', 'as sent'], // afm_add_message
  ['prompt_template_versions.body', 'as sent'], // create_prompt_template
  ['workflow_versions.graph', 'as sent'], // gc_workflow_create
  ['workflows.description', 'as sent'],
  ['handoff_bundles.content', 'as sent'], // create_handoff_bundle
  ['prompt_datasets.cases', 'as sent'], // create_dataset
  ['preserved_originals.content', 'as sent'], // originals of compressions that removed > 80%: get_original_output returns them
  ['marker_texts.content', 'as sent'], // what an elision marker hides: expand_markers and /v1/expand return it
  ['batch_job_documents.text', 'as sent'], // batch_compress_queue: each document until its job is read, and its result
  ['batch_job_documents.result', 'derived'],
]);

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const pick = (alphabet: string, n: number) => Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');

/** Every table's rows as JSON, split into (table.column → text of the value). */
async function columnsOf(databaseUrl: string | null, dataDir: string): Promise<Map<string, string[]>> {
  const store = await openStore({ databaseUrl, dataDir });
  const out = new Map<string, string[]>();
  try {
    const tables = await store.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'");
    for (const { table_name } of tables) {
      for (const { row } of await store.query<{ row: string }>(`select row_to_json(t)::text as row from "${table_name}" t`)) {
        for (const [column, value] of Object.entries(JSON.parse(row) as Record<string, unknown>)) {
          if (value === null) continue;
          const key = `${table_name}.${column}`;
          const list = out.get(key) ?? [];
          list.push(typeof value === 'string' ? value : JSON.stringify(value));
          out.set(key, list);
        }
      }
    }
  } finally {
    await store.close();
  }
  return out;
}

/** Every file under a folder (PGlite's data files, the usage journal), as bytes read as latin1. */
function filesUnder(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push({ path, text: readFileSync(path).toString('latin1') });
  }
  return out;
}

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

describe(`secrets at rest (${DB_KIND})`, () => {
  it('service secrets are in no table, file or log line; credentials in customer text only in content columns, as sent', async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'gc-at-rest-'));
    const receiver = await startReceiver();
    cleanup.push(async () => {
      await receiver.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const proc = await spawnUntil(
      join(packageRoot(), 'dist/src/main.js'),
      {
        DATABASE_URL: db.databaseUrl ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_REQUESTS: 'true',
        PROVIDER_KEY_SECRET: randomBytes(32).toString('hex'), FEDERATION_ALLOWED_HOSTS: receiver.host, MCP_PROXY_ALLOWED_HOSTS: receiver.host, LLM_ALLOWED_HOSTS: '127.0.0.1:9',
      },
      /(gc_[0-9a-f]{32})/,
    );
    const port = Number(/"port":(\d+)/.exec(proc.output())![1]);
    const url = `http://127.0.0.1:${port}`;
    const owner = proc.match[1]!;
    const req = async (method: string, path: string, body?: unknown, key = owner) => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      expect(res.status, `${method} ${path}: ${text.slice(0, 300)}`).toBeLessThan(300);
      return text ? JSON.parse(text) : null;
    };

    // Credentials a customer pastes into their text (the first line, so a preview would carry them).
    const planted = {
      aws: `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`,
      openai: `sk-proj-${pick(ALNUM, 40)}`,
      github: `ghp_${pick(ALNUM, 36)}`,
      pg: `pw${pick(ALNUM, 14)}`,
    };
    const text = (what: string) =>
      `${what}: deploy with ${planted.aws}, ${planted.openai}, ${planted.github} and postgres://app:${planted.pg}@db.internal/prod\n` +
      'Connection pooling keeps a small set of open connections and hands them to requests. '.repeat(6);
    // The service's own secrets, each shown once to its creator.
    const service: Record<string, string> = {};

    // --- REST ---
    await req('POST', '/v1/compress', { text: text('compress') });
    // Removes more than 80% (the same sentences over and over): the original is kept for get_original_output.
    const squeezed = await req('POST', '/v1/compress', { text: `${text('compress-outline')}${'Pools reuse open connections for later requests. '.repeat(300)}`, fidelity: 'outline' });
    expect(squeezed.savings_percent).toBeGreaterThan(80);
    await req('POST', '/v1/batch-compress', { documents: [{ id: 'a', text: text('batch') }] });
    const project = (await req('POST', '/v1/projects', { name: 'at-rest', description: text('project') })).project_id;
    await req('POST', '/v1/profiles', { name: 'at-rest', description: text('profile') });
    await req('POST', `/v1/projects/${project}/knowledge/items`, { name: 'runbook', content: text('kb item') });
    service.webhook = (await req('POST', '/v1/webhooks', { url: receiver.url, events: ['a2a.task.status'] })).secret;
    const second = await req('POST', '/v1/keys', { name: 'second' });
    service.key = second.key;
    const projectKey = await req('POST', '/v1/keys', { name: 'bound', project_id: project });
    service.projectKey = projectKey.key;
    const token = await req('POST', `/v1/keys/${second.key_id}/confirm-tokens`, { operation: 'revoke' });
    if (token?.token) service.confirmToken = token.token;
    const rotated = await req('POST', `/v1/keys/${second.key_id}/rotate`, { grace_period_days: 1 });
    service.rotated = rotated.key;

    // --- MCP (the official SDK client) ---
    const mcp = await connectMcp(url, owner);
    const bound = await connectMcp(url, projectKey.key);
    try {
      await ok(mcp, 'add_memory', { content: text('memory') });
      await ok(mcp, 'afm_add_message', { role: 'user', content: text('afm') });
      await ok(mcp, 'ingest_context', { text: text('document'), name: 'notes' });
      await ok(mcp, 'create_prompt_template', { name: 'at-rest', template: text('prompt') });
      await ok(mcp, 'create_handoff_bundle', { title: 'handoff', notes: text('handoff') });
      // A skill holding credentials is refused by its scan and stored nowhere.
      expect((await call(mcp, 'gc_skill_author', { name: 'at-rest', tagline: 'Secrets at rest', category: 'devops', body: text('skill') })).data.error).toBe('scan_critical');
      await ok(mcp, 'create_dataset', { name: 'at-rest', cases: [{ variables: { topic: text('dataset') }, expected: 'ok' }] });
      await ok(mcp, 'compress_tool_output', { output: text('tool output') });
      // Telemetry takes a prompt to hash its prefix: the prompt itself must not be kept.
      await ok(mcp, 'capture_cache_telemetry', { model: 'gpt-4o', input_tokens: 1200, cached_tokens: 1000, prompt: text('telemetry') });
      const queued = await ok(mcp, 'batch_compress_queue', { documents: [{ id: 'q', text: text('queued') }] });
      await waitForJob((path) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${owner}` } }).then(async (r) => ({ status: r.status, json: await r.json() })), queued.job_id);
      service.minted = (await ok(mcp, 'gc_mint_api_key', { name: 'minted' })).key;
      await ok(bound, 'gc_kb_ingest', { name: 'kb-mcp', content: text('kb mcp') });
      await ok(bound, 'gc_workflow_create', { name: 'at-rest', description: text('workflow'), graph: { nodes: [{ id: 'answer', type: 'llm', params: { prompt: text('workflow prompt') } }], edges: [] } });
      // An upstream MCP server's Authorization header is passed through, never kept (the upstream here is no MCP server: 502).
      service.upstream = `upstream-${pick(ALNUM, 32)}`;
      const proxied = await call(mcp, 'proxy_mcp_server', { server: { url: receiver.url, headers: { authorization: `Bearer ${service.upstream}` } }, action: 'list_tools' });
      expect(proxied.isError).toBe(true);
      expect(receiver.received.some((r) => r.headers.authorization === `Bearer ${service.upstream}`)).toBe(true);
      service.providerKey = `sk-${pick(ALNUM, 48)}`;
      await ok(bound, 'gc_provider_set', { name: 'mine', api: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: service.providerKey });
    } finally {
      await mcp.close();
      await bound.close();
    }
    // Every write above has its usage event (and preview) before the process stops.
    const events = await req('GET', '/v1/usage/events?page_size=100');
    const previews: string[] = events.items.map((e: { input_preview: string | null }) => e.input_preview).filter(Boolean);
    expect(previews.some((p) => p.includes('[redacted:aws_access_key_id]'))).toBe(true);
    await stop(proc.child);

    const columns = await columnsOf(db.databaseUrl, dataDir);
    const logs = proc.output();
    const logLines = logs.split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(10); // one per REST request at least (LOG_REQUESTS)

    // The service's own secrets: no column, no log line, no file of the data folder, no pg_dump.
    const files = db.databaseUrl ? [{ path: 'pg_dump', text: execFileSync('pg_dump', ['-d', db.databaseUrl], { maxBuffer: 256 << 20 }).toString() }] : filesUnder(dataDir);
    expect(files.reduce((n, f) => n + f.text.length, 0)).toBeGreaterThan(10_000);
    for (const [what, secret] of Object.entries({ ...service, owner })) {
      const where = [...columns].filter(([, values]) => values.some((v) => v.includes(secret))).map(([c]) => c);
      expect(where, `${what} is stored in`).toEqual([]);
      expect(files.filter((f) => f.text.includes(secret)).map((f) => f.path), `${what} is in`).toEqual([]);
      expect(logLines.filter((l) => l.includes(secret)), `${what} is logged`).toEqual([]);
      if (what !== 'owner') expect(logs).not.toContain(secret); // the owner key is printed once, in the first start's banner
    }

    // Credentials inside customer text: only in content columns, and each content column holds them.
    for (const [what, secret] of Object.entries(planted)) {
      const where = [...columns].filter(([, values]) => values.some((v) => v.includes(secret))).map(([c]) => c).sort();
      expect(where.filter((c) => !CONTENT.has(c)), `${what} outside the content columns`).toEqual([]);
      expect(logs.includes(secret), `${what} is logged`).toBe(false);
    }
    const holding = [...columns].filter(([, values]) => values.some((v) => v.includes(planted.aws))).map(([c]) => c);
    expect([...CONTENT].filter(([c, how]) => how === 'as sent' && !holding.includes(c)).map(([c]) => c), 'content columns the writes did not reach').toEqual([]);
    // Usage previews were kept (the default) and redacted.
    const stored = columns.get('usage_events.input_preview') ?? [];
    expect(stored.filter((p) => p.includes('[redacted:aws_access_key_id]')).length).toBeGreaterThanOrEqual(5);
    // The webhook secret and the provider key are sealed under the server key.
    expect(columns.get('user_webhooks.secret')).toEqual([expect.stringMatching(/^sealed:server:v1\./)]);
    expect(columns.get('llm_providers.key_sealed')?.[0]).toMatch(/^v1\./);
  }, 240_000);
});
