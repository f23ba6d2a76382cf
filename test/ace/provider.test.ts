// ACE through a project's registered provider that follows the JSON formats (a scripted
// OpenAI-compatible server on a real socket, allowed by LLM_ALLOWED_HOSTS): the model paths of the
// reflector and the curator end to end, model tags winning over the outcome, citations, an unpriced
// model's null cost, and provider failures as tool errors.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant } from '../kb/helpers.js';

const INSIGHT = 'Never trust the client clock for invoice dates.';
const NEW_RULE = "Stamp each invoice with the server's UTC time.";
let fake: Server;
let failNext = 0;
const prompts: string[] = [];

/** Answers by role, from the system prompt's first words, in the formats ACE asks for. */
function reply(system: string): string {
  if (system.startsWith('You solve the task')) return 'Following [b1] and [b99], the invoice date comes from the request header.';
  if (system.startsWith('You are the reflector')) {
    return `Here is my reflection:\n\`\`\`json\n${JSON.stringify({ insights: [{ section: 'pitfalls', content: INSIGHT }], bullet_tags: [{ label: 'b1', tag: 'harmful' }] })}\n\`\`\``;
  }
  if (system.startsWith('You are the curator')) {
    return JSON.stringify({ operations: [{ type: 'ADD', section: 'pitfalls', content: INSIGHT }, { type: 'ADD', section: 'strategies', content: NEW_RULE }, { type: 'DELETE', content: 'b1' }] });
  }
  return 'unexpected';
}

let server: TestServer;
let a: Client;

beforeAll(async () => {
  fake = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (failNext > 0) {
        failNext--;
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'scripted failure' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const system = body.messages.find((m: any) => m.role === 'system')?.content ?? '';
      prompts.push(system);
      // A model that emits U+0000 and an unpaired surrogate (text PostgreSQL cannot store).
      const text = body.model === 'scripted-nul' ? reply(system).replace('client clock', 'client\\u0000 clock\\ud800') : reply(system);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ id: 'x', object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 50, completion_tokens: 20 } }),
      );
    });
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
  const port = (fake.address() as AddressInfo).port;
  const base = loadConfig({});
  server = await startTestServer({
    rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 },
    llm: { ...base.llm, allowedHosts: [`127.0.0.1:${port}`], maxRetries: 0, backoffBaseMs: 5, timeoutMs: 5000 },
  });
  const t = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  const set = await call(a, 'gc_provider_set', { name: 'scripted', api: 'openai', base_url: `http://127.0.0.1:${port}/v1`, default_model: 'scripted-1' });
  expect(set.isError, JSON.stringify(set.data)).toBe(false);
});
afterAll(async () => {
  await a?.close();
  await server?.close();
  await new Promise<void>((r) => (fake ? fake.close(() => r()) : r()));
});

async function ok(name: string, args: Record<string, unknown>) {
  const r = await call(a, name, args);
  expect(r.isError, `${name}: ${JSON.stringify(r.data).slice(0, 400)}`).toBe(false);
  return r.data;
}

describe(`ACE with a JSON-following provider (${DB_KIND})`, () => {
  it('a cycle takes the model paths: model tags, model ADDs (deduplicated), citations; unpriced cost is null', async () => {
    const g = await ok('ace_grow_context', { playbook: 'inv', bullets: [{ content: 'Take the invoice date from the request header sent by the client.' }] });
    const b1 = g.operations[0].bullet_id;
    const cycle = await ok('ace_execute_cycle', { playbook: 'inv', provider: 'scripted', task: 'Which date goes on the invoice?', outcome: 'success' });
    expect(cycle.generate).toMatchObject({ provider: 'scripted', model: 'scripted-1', input_tokens: 50, output_tokens: 20, cost_micros: null, bullets_cited: [b1] });
    expect(prompts.at(-3)).toContain(`[b1] Take the invoice date`);
    // The model's tag wins over the outcome (success would have said helpful).
    expect(cycle.reflect).toMatchObject({ path: 'model', insights: [{ section: 'pitfalls', content: INSIGHT }], bullet_tags: [{ bullet_id: b1, label: 'b1', tag: 'harmful' }] });
    expect(cycle.curate.path).toBe('model');
    const ops = cycle.delta.operations;
    expect(ops.filter((o: any) => o.op === 'ADD').map((o: any) => [o.status, o.content])).toEqual([
      ['added', INSIGHT],
      ['added', NEW_RULE],
    ]);
    expect(ops).toContainEqual(expect.objectContaining({ op: 'UPDATE', bullet_id: b1, harmful_delta: 1, harmful_count: 1 }));
    expect(cycle.cost_micros).toBeNull();

    // The same proposals again are duplicates of what is now there; the DELETE was never applied.
    const again = await ok('ace_execute_cycle', { playbook: 'inv', provider: 'scripted', task: 'Which date goes on the invoice?' });
    expect(again.curate).toMatchObject({ path: 'model', added: 0, duplicates: 2 });
    const pb = await ok('ace_get_playbook', { playbook: 'inv' });
    expect(pb.bullets.map((x: any) => x.content)).toEqual(['Take the invoice date from the request header sent by the client.', INSIGHT, NEW_RULE]);
    expect(pb.bullets[0].harmful_count).toBe(2);
  });

  it('a reply with U+0000 or an unpaired surrogate is stored cleaned, not refused', async () => {
    const r = await ok('ace_reflect', { playbook: 'nul', provider: 'scripted', model: 'scripted-nul', task: 'Which date goes on the invoice?', answer: 'The client date.' });
    expect(r.path).toBe('model');
    expect(r.insights[0].content).toBe('Never trust the client clock\ufffd for invoice dates.');
    expect(r.reflection).not.toContain('\u0000');
  });

  it('a failing provider is a tool error with its detail; nothing is stored', async () => {
    const before = await ok('ace_get_playbook', { playbook: 'inv' });
    failNext = 1;
    const r = await call(a, 'ace_execute_cycle', { playbook: 'inv', provider: 'scripted', task: 'Which date goes on the invoice?' });
    expect(r.isError).toBe(true);
    expect(r.data.error).toBe('provider_error');
    expect(r.data.detail).toMatch(/scripted.*500/);
    const after = await ok('ace_get_playbook', { playbook: 'inv' });
    expect(after.stats).toEqual(before.stats);
  });
});
