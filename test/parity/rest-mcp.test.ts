// REST and MCP are adapters over one use-case layer: for every compression-type operation both
// surfaces offer, the same caller gets the same outcome, and each call writes one usage event.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/auth/plans.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createProject } from '../../src/domain/identity/projects.js';
import { createUser } from '../../src/domain/identity/users.js';
import { runTask } from '../../src/domain/compute.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

const TEXT = Array.from(
  { length: 40 },
  (_, i) => `Section ${i} explains how the connection pool limits backend processes; idle connections still cost memory in case ${i}.`,
).join('\n\n');

/** Two modules with real bodies, so structural compression has something to drop. */
const body = (name: string) =>
  Array.from({ length: 12 }, (_, i) => `    step_${i} = ${name}_table[${i}] * factor + offset  # accumulate part ${i}\n`).join('') + '    return step_11\n';
const FILES = [
  { path: 'a.py', content: `from b import helper\n\ndef main(factor, offset, main_table):\n    '''Entry point.'''\n${body('main')}\n` },
  {
    path: 'b.py',
    content: ['helper', 'scale', 'shift', 'unused'].map((f) => `def ${f}(factor, offset, ${f}_table):\n    '''Computes ${f}.'''\n${body(f)}`).join('\n'),
  },
];

/** One operation on both surfaces: the REST request and the MCP tool call that do the same work. */
interface Operation {
  name: string;
  rest: { method: string; path: (project: string) => string; body?: unknown };
  tool: string;
  args: Record<string, unknown>;
  /** Token figures the response reports, read the same way on both surfaces. */
  figures?: (result: any) => { input: number; output: number };
}

const TEXT_OP: Operation = {
  name: 'text compression',
  rest: { method: 'POST', path: () => '/v1/compress', body: { text: TEXT, fidelity: 'outline' } },
  tool: 'optimize_for_model',
  args: { text: TEXT, model: 'gpt-4o', fidelity: 'outline' },
  figures: (r) => ({ input: r.original_tokens, output: r.compressed_tokens }),
};

const CODE_OP: Operation = {
  name: 'structural code compression',
  rest: { method: 'POST', path: () => '/v1/compress-code/structural', body: { files: FILES, query: 'helper' } },
  tool: 'compress_codebase',
  args: { files: FILES, query: 'helper' },
  figures: (r) => ({ input: r.original_tokens, output: r.compressed_tokens }),
};

const DETECT_OP: Operation = {
  name: 'issue detection',
  rest: { method: 'POST', path: () => '/v1/detect-issues', body: { original_text: TEXT, compressed_text: 'Section 0 explains pools.' } },
  tool: 'verify_compression',
  args: { original_text: TEXT, compressed_text: 'Section 0 explains pools.' },
};

const MISSING = '00000000-0000-4000-8000-000000000000';
const DIFF_OP: Operation = {
  name: 'knowledge diff',
  rest: { method: 'GET', path: (p) => `/v1/projects/${p}/knowledge/items/${MISSING}/diff?from_version_id=${MISSING}&to_version_id=${MISSING}` },
  tool: 'gc_kb_diff',
  args: { item_id: MISSING, from_version_id: MISSING, to_version_id: MISSING },
};

/** The surface-neutral outcome: what kind of answer, and the token figures of a success. */
type Outcome = { kind: string; retryAfter?: boolean; figures?: { input: number; output: number } };

const KIND_OF_STATUS: Record<number, string> = { 200: 'success', 403: 'plan_required', 404: 'not_found', 429: 'quota_exceeded', 503: 'unavailable' };

interface Caller {
  key: string;
  keyId: string;
  projectId: string;
  mcp: Client;
}

async function makeCaller(server: TestServer, plan: Plan, quota: number | null = null): Promise<Caller> {
  const db = server.app.services.db;
  const user = await createUser(db, { plan, name: `parity-${plan}` });
  const project = await createProject(db, user.id, { name: 'parity' });
  const created = await createApiKey(db, { userId: user.id, plan, name: 'parity', projectId: project.id, monthlyQuota: quota, enforceQuota: quota !== null });
  return { key: created.key, keyId: created.row.key_id, projectId: project.id, mcp: await connectMcp(server.url, created.key, 'parity-client') };
}

async function viaRest(server: TestServer, op: Operation, caller: Caller): Promise<Outcome> {
  const res = await server.request(op.rest.method, op.rest.path(caller.projectId), { key: caller.key, body: op.rest.body });
  const kind = KIND_OF_STATUS[res.status] ?? `status ${res.status}`;
  expect(res.json?.detail ?? 'ok', `${op.name} over REST answers JSON`).toBeTruthy();
  return {
    kind,
    ...(res.headers.get('retry-after') ? { retryAfter: true } : {}),
    ...(kind === 'success' && op.figures ? { figures: op.figures(res.json) } : {}),
  };
}

async function viaMcp(op: Operation, caller: Caller): Promise<Outcome> {
  const { isError, data } = await call(caller.mcp, op.tool, op.args);
  const kind = isError ? data.error : 'success';
  return {
    kind,
    ...(typeof data.retry_after_seconds === 'number' ? { retryAfter: true } : {}),
    ...(!isError && op.figures ? { figures: op.figures(data) } : {}),
  };
}

async function eventsOf(server: TestServer, keyId: string) {
  await server.app.services.background.drain();
  return server.app.services.db.query<{ method: string; tool_name: string | null; status: string; input_tokens: number; output_tokens: number }>(
    'select method, tool_name, status, input_tokens, output_tokens from usage_events where key_id = $1 order by created_at',
    [keyId],
  );
}

describe(`REST and MCP parity (${DB_KIND})`, () => {
  let server: TestServer;
  let busy: TestServer;
  const clients: Client[] = [];
  const hold = new AbortController();

  beforeAll(async () => {
    server = await startTestServer();
    // One thread, held by a long task, and no room to wait: every compute call meets a saturated pool.
    busy = await startTestServer({ poolThreads: 1, poolMaxQueue: 0 });
    void runTask(busy.app.services, 'ping', { holdMs: 600_000 }, { signal: hold.signal, deadlineMs: 600_000 }).catch(() => undefined);
  });
  afterAll(async () => {
    hold.abort();
    for (const c of clients) await c.close();
    await server?.close();
    await busy?.close();
  });

  async function caller(s: TestServer, plan: Plan, quota: number | null = null) {
    const c = await makeCaller(s, plan, quota);
    clients.push(c.mcp);
    return c;
  }

  for (const op of [TEXT_OP, CODE_OP]) {
    it(`${op.name}: same figures on success, one usage event per call on each surface`, async () => {
      const rest = await caller(server, 'pro');
      const mcp = await caller(server, 'pro');
      const a = await viaRest(server, op, rest);
      const b = await viaMcp(op, mcp);
      expect(a.kind).toBe('success');
      expect(b).toEqual(a);
      expect(a.figures!.input).toBeGreaterThan(a.figures!.output);

      const restEvents = await eventsOf(server, rest.keyId);
      const mcpEvents = await eventsOf(server, mcp.keyId);
      expect(restEvents).toEqual([{ method: 'REST', tool_name: null, status: 'success', input_tokens: a.figures!.input, output_tokens: a.figures!.output }]);
      expect(mcpEvents).toEqual([{ method: 'MCP', tool_name: op.tool, status: 'success', input_tokens: b.figures!.input, output_tokens: b.figures!.output }]);
    });

    it(`${op.name}: an exhausted quota refuses on both surfaces with a retry time, recorded once as client_error`, async () => {
      const rest = await caller(server, 'pro', 1);
      const mcp = await caller(server, 'pro', 1);
      expect((await viaRest(server, op, rest)).kind).toBe('success');
      expect((await viaMcp(op, mcp)).kind).toBe('success');
      await server.app.services.background.drain(); // usage events are written in 50 ms batches
      const a = await viaRest(server, op, rest);
      const b = await viaMcp(op, mcp);
      expect(a).toEqual({ kind: 'quota_exceeded', retryAfter: true });
      expect(b).toEqual(a);
      expect((await eventsOf(server, rest.keyId)).map((e) => e.status)).toEqual(['success', 'client_error']);
      expect((await eventsOf(server, mcp.keyId)).map((e) => e.status)).toEqual(['success', 'client_error']);
    });

    it(`${op.name}: a saturated pool is unavailable with a retry time on both surfaces, recorded once as server_error`, async () => {
      const rest = await caller(busy, 'pro');
      const mcp = await caller(busy, 'pro');
      const a = await viaRest(busy, op, rest);
      const b = await viaMcp(op, mcp);
      expect(a).toEqual({ kind: 'unavailable', retryAfter: true });
      expect(b).toEqual(a);
      expect((await eventsOf(busy, rest.keyId)).map((e) => e.status)).toEqual(['server_error']);
      expect((await eventsOf(busy, mcp.keyId)).map((e) => e.status)).toEqual(['server_error']);
    });
  }

  it('issue detection: a plan too low is refused on both surfaces; a saturated pool is unavailable on both', async () => {
    const freeRest = await caller(server, 'free');
    const freeMcp = await caller(server, 'free');
    const a = await viaRest(server, DETECT_OP, freeRest);
    expect(a).toEqual({ kind: 'plan_required' });
    expect(await viaMcp(DETECT_OP, freeMcp)).toEqual(a);

    const proRest = await caller(server, 'pro');
    const proMcp = await caller(server, 'pro');
    expect((await viaRest(server, DETECT_OP, proRest)).kind).toBe('success');
    expect((await viaMcp(DETECT_OP, proMcp)).kind).toBe('success');

    const busyRest = await caller(busy, 'pro');
    const busyMcp = await caller(busy, 'pro');
    const c = await viaRest(busy, DETECT_OP, busyRest);
    expect(c).toEqual({ kind: 'unavailable', retryAfter: true });
    expect(await viaMcp(DETECT_OP, busyMcp)).toEqual(c);
  });

  it('knowledge diff: an unknown resource is not_found on both surfaces', async () => {
    const rest = await caller(server, 'pro');
    const mcp = await caller(server, 'pro');
    const a = await viaRest(server, DIFF_OP, rest);
    expect(a).toEqual({ kind: 'not_found' });
    expect(await viaMcp(DIFF_OP, mcp)).toEqual(a);
  });
});
