import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, ok, fails } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { connectAs } from '../helpers/users.js';
import { makeTenant } from '../kb/helpers.js';

let server: TestServer;
let a: Client;
let sameUserOtherScope: Client;
let stranger: Client;
let free: Client;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
  const t = await makeTenant(server);
  const o = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  sameUserOtherScope = await connectMcp(server.url, t.unbound);
  stranger = await connectMcp(server.url, o.keyA);
  free = await connectAs(server, 'free');
});
afterAll(async () => {
  await Promise.allSettled([a?.close(), stranger?.close(), sameUserOtherScope?.close(), free?.close()]);
  await server?.close();
});

const SUMMARY = 'You are a careful assistant.\n\nSummarise the following text in at most {{words}} words for {{audience}}.\n\n{{document}}\n';

describe('prompt templates through the SDK client', () => {
  let id: string;

  it('creates a template with inferred variables, lists it and gets it', async () => {
    const c = await ok(a, 'create_prompt_template', { name: 'summary', description: 'summaries', template: SUMMARY });
    id = c.template_id;
    expect(c.version).toBe(1);
    expect(c.variables.map((v: { name: string }) => v.name)).toEqual(['audience', 'document', 'words']);
    expect(c.variables.every((v: { type: string; required: boolean }) => v.type === 'scalar' && v.required)).toBe(true);
    expect(c.template_tokens).toBeGreaterThan(10);
    const list = await ok(a, 'list_prompt_templates', {});
    expect(list.templates.map((t: { template_id: string }) => t.template_id)).toContain(id);
    const g = await ok(a, 'get_prompt_template', { template_id: id });
    expect(g.body).toBe(SUMMARY);
    expect(g.latest_version).toBe(1);
    await fails(a, 'create_prompt_template', { name: 'summary', template: 'x' }, /already exists/);
  });

  it('declares typed variables and rejects declarations that do not match the template', async () => {
    const typed = await ok(a, 'create_prompt_template', {
      name: 'typed',
      template: 'Write {{count}} items about {{topic}}.{{#urgent}} Be quick.{{/urgent}}{{#items}}\n- {{title}}{{/items}}',
      variables: [
        { name: 'count', type: 'integer' },
        { name: 'topic', type: 'string' },
        { name: 'urgent', type: 'boolean', required: false },
        { name: 'items', type: 'array', required: false },
      ],
    });
    const r = await ok(a, 'render_prompt_template', { template_id: typed.template_id, variables: { count: 3, topic: 'tides', urgent: true, items: [{ title: 'a' }, { title: 'b' }] } });
    expect(r.rendered).toBe('Write 3 items about tides. Be quick.\n- a\n- b');
    const plain = await ok(a, 'render_prompt_template', { template_id: typed.template_id, variables: { count: 1, topic: '<b>&' } });
    expect(plain.rendered).toBe('Write 1 items about <b>&.'); // no HTML escaping in prompts
    await fails(a, 'render_prompt_template', { template_id: typed.template_id, variables: { count: 'three', topic: 'x' } }, /type mismatch: count must be integer, got string/);
    await fails(a, 'render_prompt_template', { template_id: typed.template_id, variables: { count: 2.5, topic: 'x' } }, /count must be integer, got number/);
    await fails(a, 'create_prompt_template', { name: 'bad1', template: 'Hi {{name}} {{other}}', variables: [{ name: 'name', type: 'string' }] }, /undeclared variable\(s\) other/);
    await fails(a, 'create_prompt_template', { name: 'bad2', template: 'Hi {{name}}', variables: [{ name: 'name' }, { name: 'ghost' }] }, /not used in the template: ghost/);
  });

  it('renders with clear errors for missing and extra variables', async () => {
    const r = await ok(a, 'render_prompt_template', { template_id: id, variables: { words: 50, audience: 'engineers', document: 'Tides are caused by the moon.' } });
    expect(r.rendered).toContain('at most 50 words for engineers');
    expect(r.rendered).toContain('Tides are caused by the moon.');
    expect(r.tokens).toBeGreaterThan(10);
    const e = await fails(a, 'render_prompt_template', { template_id: id, variables: { words: 50, audience: 'x', extra_thing: 1 } }, /missing variable\(s\): document.*unknown variable\(s\): extra_thing/);
    expect(e.problems).toEqual(expect.arrayContaining([{ name: 'document', problem: 'missing', expected: 'scalar' }, { name: 'extra_thing', problem: 'extra' }]));
    await fails(a, 'render_prompt_template', { template_id: id, variables: { words: { n: 1 }, audience: 'x', document: 'y' } }, /words must be scalar, got object/);
  });

  it('rejects invalid template syntax and partials', async () => {
    await fails(a, 'create_prompt_template', { name: 'broken', template: 'Hello {{#open}} never closed' }, /invalid template syntax/);
    await fails(a, 'create_prompt_template', { name: 'broken2', template: 'Hello {{name' }, /invalid template syntax/);
    await fails(a, 'create_prompt_template', { name: 'partial', template: 'Hello {{> header}}' }, /partials/);
    await fails(a, 'update_prompt_template', { template_id: id, template: 'x {{/close}}' }, /invalid template syntax/);
  });

  it('makes every update a new version; labels deploy atomically with an audit row per move', async () => {
    const v2 = await ok(a, 'update_prompt_template', { template_id: id, template: SUMMARY.replace('careful', 'concise'), note: 'tone' });
    expect(v2.version).toBe(2);
    const v3 = await ok(a, 'update_prompt_template', { template_id: id, variables: [{ name: 'words', type: 'integer' }, { name: 'audience', type: 'string' }, { name: 'document', type: 'string' }] });
    expect(v3.version).toBe(3);
    expect(v3.body).toBe(v2.body);
    expect(v3.variables.find((v: { name: string }) => v.name === 'words').type).toBe('integer');
    // A new body keeps the declarations that still fit.
    const v4 = await ok(a, 'update_prompt_template', { template_id: id, template: `${v3.body}\nAnswer in plain text.` });
    expect(v4.variables.find((v: { name: string }) => v.name === 'words').type).toBe('integer');

    const d1 = await ok(a, 'deploy_prompt_version', { template_id: id, label: 'production', version: 1 });
    expect(d1).toMatchObject({ label: 'production', from_version: null, to_version: 1 });
    const d2 = await ok(a, 'deploy_prompt_version', { template_id: id, label: 'production', version: 3 });
    expect(d2).toMatchObject({ from_version: 1, to_version: 3, labels: { production: 3 } });
    await ok(a, 'deploy_prompt_version', { template_id: id, label: 'canary', version: 4 });
    const byLabel = await ok(a, 'get_prompt_template', { template_id: id, label: 'production' });
    expect(byLabel.version).toBe(3);
    expect(byLabel.labels).toEqual({ canary: 4, production: 3 });
    expect(byLabel.versions.map((v: { version: number }) => v.version)).toEqual([4, 3, 2, 1]);
    expect(byLabel.label_history.map((m: { label: string; from_version: number | null; to_version: number }) => [m.label, m.from_version, m.to_version])).toEqual([
      ['canary', null, 4],
      ['production', 1, 3],
      ['production', null, 1],
    ]);
    expect(byLabel.label_history[0].moved_by_user_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(byLabel.label_history[0].moved_by_key_id).toBeTruthy();
    // The production label's typed variables apply when rendering by label.
    await fails(a, 'render_prompt_template', { template_id: id, label: 'production', variables: { words: '50', audience: 'x', document: 'y' } }, /words must be integer/);
    const r = await ok(a, 'render_prompt_template', { template_id: id, label: 'canary', variables: { words: 50, audience: 'x', document: 'y' } });
    expect(r.version).toBe(4);
    expect(r.rendered).toContain('Answer in plain text.');
  });

  it('serialises concurrent label moves: every audit row starts where the previous one ended', async () => {
    await Promise.all([1, 2, 3, 4, 1, 2, 3, 4].map((v) => ok(a, 'deploy_prompt_version', { template_id: id, label: 'staging', version: v })));
    const g = await ok(a, 'get_prompt_template', { template_id: id });
    const staging = g.label_history.filter((m: { label: string }) => m.label === 'staging').reverse();
    expect(staging).toHaveLength(8);
    expect(staging[0].from_version).toBeNull();
    for (let i = 1; i < staging.length; i++) expect(staging[i].from_version).toBe(staging[i - 1].to_version);
    expect(g.labels.staging).toBe(staging.at(-1).to_version);
  });

  it('answers unknown ids, versions and labels with clear errors', async () => {
    const ghost = '00000000-0000-4000-8000-000000000000';
    await fails(a, 'get_prompt_template', { template_id: ghost }, /not_found.*not found/);
    await fails(a, 'get_prompt_template', { template_id: id, version: 99 }, /no version 99 \(latest is 4\)/);
    await fails(a, 'deploy_prompt_version', { template_id: id, label: 'production', version: 99 }, /no version 99/);
    const bad = await fails(a, 'deploy_prompt_version', { template_id: id, label: 'prod', version: 1 }, /validation_error/);
    expect(bad.issues[0].loc).toEqual(['label']);
    expect(bad.issues[0].msg).toMatch(/production.*staging.*canary/);
    const t2 = await ok(a, 'create_prompt_template', { name: 'undeployed', template: 'Hi {{x}}' });
    await fails(a, 'render_prompt_template', { template_id: t2.template_id, label: 'production', variables: { x: 1 } }, /Label 'production' is not deployed/);
    await fails(a, 'get_prompt_template', { template_id: id, version: 1, label: 'production' }, /version or label, not both/);
    await fails(a, 'update_prompt_template', { template_id: id }, /template/);
  });

  it('compares versions with a diff, token counts and cost per model', async () => {
    const c = await ok(a, 'compare_prompt_versions', { template_id: id, from_version: 1, to_version: 4, models: ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', 'gpt-4', 'no-such-model'] });
    expect(c.diff).toContain('-You are a careful assistant.');
    expect(c.diff).toContain('+You are a concise assistant.');
    expect(c.diff).toContain('+Answer in plain text.');
    expect(c.added_lines).toBeGreaterThan(0);
    const byModel = Object.fromEntries(c.models.map((m: { model: string }) => [m.model, m]));
    expect(byModel['gpt-4o'].to_tokens).toBeGreaterThan(byModel['gpt-4o'].from_tokens);
    expect(byModel['gpt-4o'].cost_delta_usd).toBeCloseTo((byModel['gpt-4o'].token_delta * 2.5) / 1e6, 12);
    expect(byModel['gpt-4o-mini'].from_cost_usd).toBeCloseTo((byModel['gpt-4o-mini'].from_tokens * 0.15) / 1e6, 12);
    expect(byModel['claude-sonnet-4'].price.api).toBe('anthropic');
    expect(byModel['gpt-4'].tokenizer).toBe('cl100k_base');
    expect(byModel['no-such-model'].price).toBeNull();
    expect(byModel['no-such-model'].from_cost_usd).toBeNull();
    // Default: previous against latest; rendered comparison with variables.
    const d = await ok(a, 'compare_prompt_versions', { template_id: id, variables: { words: 10, audience: 'kids', document: 'The moon pulls the sea.' } });
    expect([d.from_version, d.to_version, d.compared]).toEqual([3, 4, 'rendered']);
    expect(d.diff).toContain('+Answer in plain text.');
    const same = await ok(a, 'compare_prompt_versions', { template_id: id, from_version: 2, to_version: 3 });
    expect(same.identical).toBe(true);
    await fails(a, 'compare_prompt_versions', { template_id: id, from_label: 'canary', to_label: 'production', variables: { words: 10 } }, /missing variable/);
  });

  it('rewrites a long template shorter and keeps every variable and section tag', async () => {
    const long = [
      'You are a support assistant for {{product}}, a project management tool used by small teams.',
      'Always greet the customer by name: {{customer_name}}.',
      'The customer wrote the following message, which you must read carefully before answering:',
      '{{message}}',
      'Our support policy is simple. We answer every question politely. We never promise features that are not on the public roadmap. We never share internal ticket numbers. We never discuss other customers. We always link to the documentation when it answers the question. We escalate billing questions to the billing team. We escalate security questions to the security team at once.',
      'The documentation covers projects, boards, cards, labels, due dates, reminders, integrations with chat tools, exports to spreadsheets, and the mobile applications for phones and tablets. It is updated every week by the documentation team, and every page has a last-updated date at the bottom.',
      'Tone: friendly, concise, professional. Avoid jargon. Avoid long paragraphs. Avoid exclamation marks. Use short sentences. Use the customer\'s own words where possible. Do not apologise more than once.',
      '{{#vip}}This customer is on the enterprise plan: offer a call with their account manager.{{/vip}}',
      'Sign the answer as {{agent}} from the {{product}} support team.',
    ].join('\n\n');
    const t = await ok(a, 'create_prompt_template', { name: 'support', template: long });
    const r = await ok(a, 'generate_rewrite_prompt', { template_id: t.template_id, fidelity: 'balanced', save: true });
    expect(r.tokens_saved).toBeGreaterThan(0);
    expect(r.rewritten_tokens).toBe(r.original_tokens - r.tokens_saved);
    for (const tag of ['{{product}}', '{{customer_name}}', '{{message}}', '{{#vip}}', '{{/vip}}', '{{agent}}']) expect(r.rewritten_prompt).toContain(tag);
    expect(r.saved_version).toBe(2);
    const g = await ok(a, 'get_prompt_template', { template_id: t.template_id });
    expect(g.body).toBe(r.rewritten_prompt);
    expect(g.variables.map((v: { name: string }) => v.name).sort()).toEqual(['agent', 'customer_name', 'message', 'product', 'vip']);
    // A tiny template has nothing to gain: the original comes back unchanged.
    const tiny = await ok(a, 'create_prompt_template', { name: 'tiny', template: 'Say hi to {{name}}.' });
    const tr = await ok(a, 'generate_rewrite_prompt', { template_id: tiny.template_id });
    expect(tr.tokens_saved).toBe(0);
    expect(tr.rewritten_prompt).toBe('Say hi to {{name}}.');
  });

  it("keeps another user's templates, and another scope's, invisible", async () => {
    for (const client of [stranger, sameUserOtherScope]) {
      await fails(client, 'get_prompt_template', { template_id: id }, /not_found/);
      await fails(client, 'render_prompt_template', { template_id: id, variables: {} }, /not_found/);
      await fails(client, 'update_prompt_template', { template_id: id, template: 'mine {{x}}' }, /not_found/);
      await fails(client, 'deploy_prompt_version', { template_id: id, label: 'production', version: 1 }, /not_found/);
      await fails(client, 'compare_prompt_versions', { template_id: id }, /not_found/);
      await fails(client, 'generate_rewrite_prompt', { template_id: id }, /not_found/);
      const l = await ok(client, 'list_prompt_templates', {});
      expect(l.templates.map((t: { template_id: string }) => t.template_id)).not.toContain(id);
    }
    // The same name is free in another scope.
    await ok(stranger, 'create_prompt_template', { name: 'summary', template: 'x {{y}}' });
    const g = await ok(a, 'get_prompt_template', { template_id: id });
    expect(g.latest_version).toBe(4);
  });

  it('pages the list with a cursor', async () => {
    const first = await ok(a, 'list_prompt_templates', { limit: 2 });
    expect(first.templates).toHaveLength(2);
    const second = await ok(a, 'list_prompt_templates', { limit: 2, cursor: first.next_cursor });
    expect(second.templates[0].template_id).not.toBe(first.templates[0].template_id);
    const filtered = await ok(a, 'list_prompt_templates', { name_contains: 'typ' });
    expect(filtered.templates.map((t: { name: string }) => t.name)).toEqual(['typed']);
    await fails(a, 'list_prompt_templates', { cursor: '!!' }, /cursor/);
  });

  it('is a Pro tool: a free key is refused', async () => {
    await fails(free, 'create_prompt_template', { name: 'x', template: 'y' }, /plan/);
    await fails(free, 'list_prompt_templates', {}, /plan/);
  });
});
