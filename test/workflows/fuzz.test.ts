// The tools under hostile arguments, with a project-bound key (the registry-wide fuzzer calls
// with an unbound key, which these tools refuse before reading their arguments): real ids mixed with
// hostile strings, numbers and shapes, graphs of random nodes and edges. Never an internal_error.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../src/mcp/registry.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant } from '../kb/helpers.js';
import { objectFields } from '../helpers/zodFields.js';

const RUNS = Number(process.env.WORKFLOW_FUZZ_RUNS ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? 1818); // FUZZ_SEED explores other cases locally
let server: TestServer;
let key: string;
const ids: string[] = [];

beforeAll(async () => {
  const unlimited = { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 };
  server = await startTestServer({ rateLimits: unlimited });
  const t = await makeTenant(server);
  key = t.keyA;
  const client = await connectMcp(server.url, key);
  try {
    const wf = (await call(client, 'gc_workflow_create', { name: 'fuzz', graph: { nodes: [{ id: 'c', type: 'compress', params: { text: 'Some text to squeeze.' } }] } })).data;
    const run = (await call(client, 'gc_run_from_workflow', { workflow_id: wf.workflow_id })).data;
    const plan = (await call(client, 'gc_kb_ingest', { name: 'fuzz plan', type: 'plan', content: '# Plan\n\n1. One.\n' })).data;
    const p = (await call(client, 'gc_plan_propose', { item_id: plan.item_id, base_version_id: plan.version_id, title: 't', content: '# Plan\n\n1. One.\n2. Two.\n' })).data;
    ids.push(wf.workflow_id, wf.current_version_id, run.run_id, plan.item_id, plan.version_id, p.proposal_id);
  } finally {
    await client.close();
  }
});
afterAll(async () => {
  await server?.close();
});

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', '../../etc/passwd', '__proto__', 'constructor', '{{nodes.x.text}}', '{{input.q}}', '{{', 'default', 'local',
    'openai', 'anthropic', 'merge', 'reject', 'queued', 'running', 'https://127.0.0.1/v1', 'http://169.254.169.254/latest', 'https://[::1]:443/v1', 'not a url', 'sk-aaaaaaaaaaaa'),
  fc.string({ minLength: 2000, maxLength: 20_000 }),
);
const hostileNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1, 1e20, -1e20));
const leaf = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));
const { value: hostileValue } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'id', 'type', 'params', 'from', 'to')), tie('value'), { maxKeys: 4 }),
}));
const nodeId = fc.constantFrom('a', 'b', 'c', 'd', 'x y', '', '__proto__');
const node = fc.record({
  id: nodeId,
  type: fc.constantFrom('kb_query', 'compress', 'llm', 'tool', 'shell', ''),
  params: fc.oneof(
    hostileValue,
    fc.record({ query: hostileValue, limit: hostileValue, fidelity: fc.constantFrom('balanced', 'raw', 'x'), prompt: hostileString, provider: hostileString, max_tokens: hostileNumber, tool: fc.constantFrom('estimate_tokens', 'gc_run_status', 'nope'), arguments: hostileValue }, { requiredKeys: [] }),
  ),
}, { requiredKeys: ['id', 'type'] });
const graph = fc.oneof(
  fc.record({ nodes: fc.array(node, { maxLength: 6 }), edges: fc.array(fc.record({ from: nodeId, to: nodeId }), { maxLength: 8 }) }),
  hostileValue,
);


const OURS = /^gc_(plan|workflow|run|provider)_/;

describe(`workflow, run, plan and provider tools under hostile arguments (${DB_KIND})`, () => {
  it('never answer internal_error', async () => {
    const tools = allTools().filter((t) => OURS.test(t.name));
    expect(tools.length).toBe(17);
    let cases = 0;
    for (const [i, tool] of tools.entries()) {
      const fields = objectFields(tool.input);
      const value = (f: string) => (f === 'graph' ? graph : fc.oneof(hostileValue, fc.constantFrom(...ids)));
      const args = fc.oneof(fc.record(Object.fromEntries(fields.map((f) => [f, value(f)])), { requiredKeys: [] }), hostileValue);
      await fc.assert(
        fc.asyncProperty(args, async (a) => {
          cases++;
          const res = await fetch(`${server.url}/mcp`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: a } }),
          });
          const text = await res.text();
          expect(res.status, `${tool.name}: ${text.slice(0, 300)}`).toBeLessThan(500);
          expect(text, `${tool.name}: ${text.slice(0, 500)}`).not.toContain('"internal_error"');
        }),
        { numRuns: RUNS, seed: SEED + i, endOnFailure: true },
      );
    }
    expect(cases).toBeGreaterThanOrEqual(17 * RUNS);
    // Runs the fuzzing queued are resolved too (none stays running).
    await server.app.services.background.drain();
  }, 300_000);
});
