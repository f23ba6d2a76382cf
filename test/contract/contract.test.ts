// Contract suite (docs/contract.md): the spec's response fields per route and per tool, written down
// once under test/contract/spec/, checked against every implemented route (over a real socket) and
// every registered tool (through the official MCP SDK client). A route or tool joins by being
// registered: the coverage guard fails until it has a contract entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../src/mcp/registry.js';
import { allRoutes } from '../../src/routes/index.js';
import { DB_KIND } from '../helpers/server.js';
import { checkFields } from './check.js';
import type { ContractContext, RouteContract, RouteRequest, ToolContract } from './contract.js';
import { startContractRun, type ContractRun } from './fixtures.js';
import { loadContracts, routeKey } from './loader.js';

const contracts = await loadContracts();
const ROUTES = allRoutes;
/** The response schema the route registry declares for a method and path (the contract's `:name` form). */
const responseSchemaOf = (method: string, path: string) => ROUTES.find((r) => r.method === method && r.path === path)?.response;
const DEBUG = process.env.CONTRACT_DEBUG === 'true';

let run: ContractRun;
let c: ContractContext;
/** A file whose setup failed fails its own entries only, with the setup's error. */
const setupErrors = new Map<string, Error>();
function requireSetup(file: string) {
  const err = setupErrors.get(file);
  if (err) throw new Error(`setup of test/contract/spec/${file} failed: ${err.message}`);
}

beforeAll(async () => {
  run = await startContractRun();
  c = run.context;
  for (const { name, file } of contracts.files) {
    if (!file.setup) continue;
    try {
      await file.setup(c);
    } catch (err) {
      setupErrors.set(name, err as Error);
    }
  }
}, 120_000);
afterAll(async () => {
  await run?.close();
});

function routeSkeleton(method: string, path: string): string {
  return `{ method: '${method}', path: '${path}', spec: '<the spec's line for it, quoted>', status: <status>, request: { … }, fields: { … } }`;
}

describe('contract coverage', () => {
  it('every registered REST route has a contract entry, and every entry names a registered route', () => {
    const registered = new Set(allRoutes.map(routeKey));
    const described = new Map<string, string[]>();
    for (const r of contracts.routes) described.set(routeKey(r), [...(described.get(routeKey(r)) ?? []), r.file]);

    const problems: string[] = [];
    for (const r of allRoutes) {
      if (described.has(routeKey(r))) continue;
      problems.push(
        `${routeKey(r)} is registered (src/routes/) but has no contract entry. Add ${routeSkeleton(r.method, r.path)} to the routes of the ` +
          `file of its spec area in test/contract/spec/ (or a new file there). If the spec does not describe this route, add it with ` +
          `outsideSpec: '<why it exists>' (test/contract/spec/outside-spec.ts, or the file of the standard that defines it, e.g. a2a-protocol.ts).`,
      );
    }
    for (const [key, files] of described) {
      if (!registered.has(key)) problems.push(`${key} has a contract entry (test/contract/spec/${files.join(', ')}) but no registered route: remove the entry or fix its method/path (as registered, with :params).`);
      if (files.length > 1) problems.push(`${key} has ${files.length} contract entries (test/contract/spec/${files.join(', ')}): keep one.`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('every registered MCP tool has a contract entry, and every entry names a registered tool', () => {
    const registered = new Set(allTools().map((x) => x.name));
    const described = new Map<string, string[]>();
    for (const x of contracts.tools) described.set(x.tool, [...(described.get(x.tool) ?? []), x.file]);
    const problems: string[] = [];
    for (const x of allTools()) {
      if (described.has(x.name)) continue;
      problems.push(
        `Tool ${x.name} (category ${x.category}, plan ${x.plan}) is registered (src/mcp/tools/) but has no contract entry. Add ` +
          `{ tool: '${x.name}', spec: '<its catalogue line, quoted>', args: { … }, fields: { … } } to the tools of the file of its ` +
          `catalogue row in test/contract/spec/ (tools-*.ts, or a new file there).`,
      );
    }
    for (const [name, files] of described) {
      if (!registered.has(name)) problems.push(`Tool ${name} has a contract entry (test/contract/spec/${files.join(', ')}) but is not registered: remove the entry or fix its name.`);
      if (files.length > 1) problems.push(`Tool ${name} has ${files.length} contract entries (test/contract/spec/${files.join(', ')}): keep one.`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('every entry quotes the spec, and an entry outside the spec says why', () => {
    const bad = [...contracts.routes.map((r) => ({ id: routeKey(r), file: r.file, e: r as RouteContract | ToolContract })), ...contracts.tools.map((x) => ({ id: x.tool, file: x.file, e: x as RouteContract | ToolContract }))]
      .filter(({ e }) => !e.spec?.trim() || (e.outsideSpec !== undefined && !e.outsideSpec.trim()))
      .map(({ id, file }) => `${id} (test/contract/spec/${file}): spec must quote the spec's line; outsideSpec must give a reason`);
    expect(bad, bad.join('\n')).toEqual([]);
  });
});

function fillPath(path: string, params: Record<string, string> = {}): string {
  // A parameter is a whole segment (`/:id`); a colon inside a segment is literal (`/message:send`).
  return path.replace(/\/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`the contract entry's request gives no value for path parameter :${name}`);
    return `/${encodeURIComponent(value)}`;
  });
}

function withQuery(path: string, query?: RouteRequest['query']): string {
  if (!query) return path;
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return qs ? `${path}?${qs}` : path;
}

describe(`contract: REST routes (${DB_KIND})`, () => {
  for (const entry of contracts.routes) {
    const label = `${routeKey(entry)} → ${entry.status}${entry.outsideSpec ? ' (outside the spec)' : ''} [${entry.file}]`;
    it(label, async () => {
      requireSetup(entry.file);
      const req: RouteRequest = typeof entry.request === 'function' ? await entry.request(c) : (entry.request ?? {});
      const path = withQuery(fillPath(entry.path, req.params), req.query);
      const res = await c.server.request(entry.method, path, { body: req.body, rawBody: req.rawBody, headers: req.headers, key: req.key });
      if (DEBUG) console.log(`${routeKey(entry)} ${res.status} ${res.headers.get('content-type')}\n${res.text.slice(0, 1500)}\n`);
      const where = `${entry.method} ${path} answered ${res.status}: ${res.text.slice(0, 400)}`;
      expect(res.status, where).toBe(entry.status);

      const kind = entry.body ?? 'object';
      const contentType = res.headers.get('content-type') ?? '';
      if (entry.contentType) expect(contentType, `${routeKey(entry)}: content-type`).toMatch(new RegExp(`^${entry.contentType.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
      if (kind === 'none') {
        expect(res.text, `${routeKey(entry)}: no body expected`).toBe('');
      } else if (kind === 'text') {
        for (const re of entry.text ?? []) expect(res.text, `${routeKey(entry)}: body should match ${re}`).toMatch(re);
      } else {
        expect(contentType, `${routeKey(entry)}: JSON content-type`).toMatch(/^application\/json/);
        if (kind === 'array') expect(Array.isArray(res.json), where).toBe(true);
        else expect(res.json !== null && typeof res.json === 'object' && !Array.isArray(res.json), where).toBe(true);
      }
      for (const [name, want] of Object.entries(entry.headers ?? {})) {
        const got = res.headers.get(name);
        if (typeof want === 'string') expect(got, `${routeKey(entry)}: header ${name}`).toBe(want);
        else expect(got ?? '', `${routeKey(entry)}: header ${name}`).toMatch(want);
      }
      const problems = checkFields(res.json, entry.fields ?? {});
      expect(problems, `${routeKey(entry)} (test/contract/spec/${entry.file}) differs from the spec ("${entry.spec}"):\n${problems.join('\n')}`).toEqual([]);
      // The spec's fields above; the route's own response schema (what /openapi.json publishes) too.
      const declared = responseSchemaOf(entry.method, entry.path);
      if (declared && entry.status < 300 && kind !== 'none' && kind !== 'text') {
        const checked = declared.safeParse(res.json);
        expect(checked.success ? [] : checked.error.issues, `${routeKey(entry)}: body off the route's response schema`).toEqual([]);
      }
      await entry.check?.(res, c, req);
    });
  }
});

describe(`contract: MCP tools (${DB_KIND})`, () => {
  for (const entry of contracts.tools) {
    const label = `${entry.tool}${entry.error ? ` → ${entry.error}` : ''}${entry.outsideSpec ? ' (outside the spec)' : ''} [${entry.file}]`;
    it(label, async () => {
      requireSetup(entry.file);
      const args = typeof entry.args === 'function' ? await entry.args(c) : (entry.args ?? {});
      const result = await c.mcp(entry.key ?? 'owner').callTool({ name: entry.tool, arguments: args });
      const text = (result.content as { type: string; text?: string }[] | undefined)?.find((p) => p.type === 'text')?.text;
      const data = result.structuredContent ?? (text ? JSON.parse(text) : undefined);
      if (DEBUG) console.log(`${entry.tool} isError=${!!result.isError}\n${JSON.stringify(data).slice(0, 1500)}\n`);
      const where = `${entry.tool} returned ${result.isError ? 'an error' : 'a result'}: ${JSON.stringify(data).slice(0, 400)}`;
      expect(data !== null && typeof data === 'object' && !Array.isArray(data), where).toBe(true);
      if (entry.error) {
        expect(result.isError, where).toBe(true);
        expect(data.error, where).toBe(entry.error);
      } else {
        expect(!!result.isError, where).toBe(false);
      }
      const problems = checkFields(data, entry.fields ?? {});
      expect(problems, `${entry.tool} (test/contract/spec/${entry.file}) differs from the spec ("${entry.spec}"):\n${problems.join('\n')}`).toEqual([]);
      await entry.check?.(data, c);
    });
  }
});
