import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { connectMcp, ok, fails } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { connectAs } from '../helpers/users.js';
import { makeTenant } from '../kb/helpers.js';
import { waitFor } from '../helpers/waitFor.js';

let server: TestServer;
let a: Client;
let unbound: Client;
let stranger: Client;
let free: Client;

beforeAll(async () => {
  const base = loadConfig({});
  server = await startTestServer({
    rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 },
    runs: { ...base.runs, pollMs: 100, leaseMs: 3000 },
    // A provider nobody listens on (port 9, discard): its calls fail like an unreachable vendor's.
    llm: { ...base.llm, allowedHosts: ['127.0.0.1:9'], maxRetries: 1, backoffBaseMs: 10, timeoutMs: 2000 },
  });
  const t = await makeTenant(server);
  const o = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  unbound = await connectMcp(server.url, t.unbound);
  stranger = await connectMcp(server.url, o.keyA);
  free = await connectAs(server, 'free');
});
afterAll(async () => {
  await Promise.allSettled([a?.close(), stranger?.close(), unbound?.close(), free?.close()]);
  await server?.close();
});

async function finished(client: Client, runId: string, timeoutMs = 40_000) {
  let last: any;
  return waitFor(() => `run ${runId} still ${last?.status}: ${JSON.stringify(last?.progress)}`, async () => {
    last = await ok(client, 'get_experiment_run', { run_id: runId });
    return (last.status === 'succeeded' || last.status === 'failed') && last;
  }, { timeoutMs, everyMs: 50 });
}

const TOPICS = ['glaciers', 'volcanoes', 'tides', 'comets', 'coral', 'deserts', 'auroras', 'monsoons'];
const LONG_PREAMBLE =
  'You are an expert science writer who explains natural phenomena to curious readers of all ages with clear, vivid and accurate language, avoiding jargon wherever a plain word will do. Now write about';

const GUIDE = `Glaciers form where more snow falls in winter than melts in summer. Over centuries the snow compacts into dense ice that flows slowly downhill under its own weight.

Volcanoes erupt when molten rock rises through cracks in the crust. Pressure from dissolved gases drives explosive eruptions, while runny basalt lava flows out gently.

Tides rise and fall twice a day because the moon's gravity pulls the oceans. The sun adds a smaller pull, so spring tides are higher when sun and moon align.`;

describe('datasets, synthetic tests and experiments through the SDK client', () => {
  let templateId: string;
  let datasetId: string;
  let runA: string;
  let runB: string;

  it('creates and lists datasets; rejects unusable JSON schemas', async () => {
    // v1 buries the topic after a long preamble; v2 names it first (the local model echoes the prompt's first 24 words).
    const t = await ok(a, 'create_prompt_template', { name: 'explain', template: `${LONG_PREAMBLE} {{topic}}.`, variables: [{ name: 'topic', type: 'string' }] });
    templateId = t.template_id;
    await ok(a, 'update_prompt_template', { template_id: templateId, template: `Topic: {{topic}}. ${LONG_PREAMBLE} it.` });
    const d = await ok(a, 'create_dataset', {
      name: 'topics',
      cases: TOPICS.map((topic, i) => ({ variables: { topic }, contains: [topic], ...(i === 0 ? { expected: 'exactly this', json_schema: { type: 'object', required: ['answer'] } } : {}) })),
    });
    datasetId = d.dataset_id;
    expect(d.case_count).toBe(8);
    const l = await ok(a, 'list_datasets', { include_cases: true });
    expect(l.datasets[0].dataset_id).toBe(datasetId);
    expect(l.datasets[0].cases[1]).toEqual({ variables: { topic: 'volcanoes' }, contains: ['volcanoes'] });
    const bad = await fails(a, 'create_dataset', { name: 'bad', cases: [{ variables: {} }, { variables: {}, json_schema: { type: 'nonsense' } }] }, /json_schema is not a usable JSON schema/);
    expect(bad.issues[0].loc).toEqual(['cases', 1, 'json_schema']);
    await fails(a, 'create_dataset', { name: 'empty', cases: [] }, /validation_error/);
    await fails(a, 'list_datasets', { cursor: '%%' }, /cursor/);
  });

  it('generates synthetic tests from a document and from a template', async () => {
    const g = await ok(a, 'generate_synthetic_tests', { template_id: templateId, document: GUIDE, count: 5, terms: 3, save_as: 'from guide' });
    expect(g.count).toBe(3);
    expect(g.cases[0].variables.topic).toMatch(/^Glaciers form/);
    expect(g.cases[0].contains).toHaveLength(3);
    for (const c of g.cases) for (const term of c.contains) expect(c.variables.topic.toLowerCase()).toContain(term);
    expect(g.dataset_id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await ok(a, 'list_datasets', {});
    expect(listed.datasets.find((x: { dataset_id: string }) => x.dataset_id === g.dataset_id)).toMatchObject({ name: 'from guide', case_count: 3, source: 'synthetic:document' });

    const typed = await ok(a, 'create_prompt_template', { name: 'typed', template: '{{n}} {{flag}} {{#items}}{{.}}{{/items}}', variables: [{ name: 'n', type: 'integer' }, { name: 'flag', type: 'boolean' }, { name: 'items', type: 'array' }] });
    const s = await ok(a, 'generate_synthetic_tests', { template_id: typed.template_id, count: 4 });
    expect(s.cases).toHaveLength(4);
    for (const c of s.cases) {
      expect(Number.isInteger(c.variables.n)).toBe(true);
      expect(typeof c.variables.flag).toBe('boolean');
      expect(Array.isArray(c.variables.items)).toBe(true);
    }
    // Every generated case renders against its template.
    await ok(a, 'render_prompt_template', { template_id: typed.template_id, variables: s.cases[2].variables });
    const doc = await ok(a, 'generate_synthetic_tests', { document: GUIDE, count: 2 });
    expect(Object.keys(doc.cases[0].variables)).toEqual(['document']);
    await fails(a, 'generate_synthetic_tests', { count: 2 }, /template_id, document or both/);
    await fails(a, 'generate_synthetic_tests', { template_id: templateId, document: GUIDE, document_variable: 'nope' }, /'nope' is not a variable of the template \(topic\)/);
    await fails(a, 'generate_synthetic_tests', { template_id: typed.template_id, document: GUIDE }, /no text variable/);
    await fails(a, 'generate_synthetic_tests', { document: 'too short' }, /no passage/);
    await fails(a, 'generate_synthetic_tests', { template_id: '00000000-0000-4000-8000-000000000000' }, /not_found/);
  });

  it('runs a versions × cases × models grid in the background and scores every cell', async () => {
    const started = await ok(a, 'run_experiment', { template_id: templateId, versions: [1, 2], dataset_id: datasetId, models: ['gc-local', 'gc-local:v2'], max_tokens: 200 });
    expect(['queued', 'running']).toContain(started.status);
    expect(started.progress.total).toBe(32);
    const r = await finished(a, started.run_id);
    expect(r.status).toBe('succeeded');
    expect(r.progress).toEqual({ done: 32, total: 32 });
    expect(r.cells).toHaveLength(32);
    expect(r.tokens.input).toBeGreaterThan(0);
    expect(r.cost_micros).toBeGreaterThan(0); // gc-local has a nominal price
    const cell = (k: number, v: number, m: string) => r.cells.find((c: any) => c.case_index === k && c.version === v && c.model === m);
    expect(cell(1, 1, 'gc-local').scores.contains).toBe(0); // the topic is past the echoed words
    expect(cell(1, 2, 'gc-local').scores.contains).toBe(1);
    expect(cell(1, 2, 'gc-local:v2').output).toMatch(/^\[gc-local:v2\]/);
    const first = cell(0, 2, 'gc-local');
    expect(first.scores.exact_match).toBe(0);
    expect(first.scores.json_valid).toBe(0);
    expect(first.scores.json_errors).toEqual(['output is not JSON']);
    for (const c of r.cells) {
      expect(c.status).toBe('succeeded');
      // Fidelity is the detector's quality score: 1 exactly when it found nothing (its floor of 0 is tested in test/detect).
      if (c.scores.fidelity_issues === 0) expect(c.scores.fidelity).toBe(1);
      else expect(c.scores.fidelity).toBeLessThan(1);
      // Overall is the mean of the metrics the case has.
      const parts = [c.scores.exact_match, c.scores.contains, c.scores.json_valid, c.scores.fidelity].filter((x) => typeof x === 'number');
      expect(c.scores.overall).toBeCloseTo(parts.reduce((a: number, b: number) => a + b, 0) / parts.length, 10);
    }
    const agg = Object.fromEntries(r.aggregates.map((x: any) => [`${x.version}/${x.model}`, x]));
    expect(agg['1/gc-local'].contains).toBe(0);
    expect(agg['2/gc-local'].contains).toBe(1);
    expect(agg['2/gc-local'].overall).toBeGreaterThan(agg['1/gc-local'].overall);
    expect(agg['2/gc-local'].cells).toBe(8);
    const slim = await ok(a, 'get_experiment_run', { run_id: started.run_id, include_cells: false });
    expect(slim.cells).toBeUndefined();
  });

  it('compares two runs case by case with a bootstrap interval', async () => {
    runA = (await ok(a, 'run_experiment', { template_id: templateId, versions: [1], dataset_id: datasetId })).run_id;
    runB = (await ok(a, 'run_experiment', { template_id: templateId, versions: [2], dataset_id: datasetId })).run_id;
    await finished(a, runA);
    await finished(a, runB);
    const c = await ok(a, 'compare_experiment_runs', { run_a: runA, run_b: runB, resamples: 2000 });
    expect(c.cases).toHaveLength(8);
    expect(c.better.b).toBeGreaterThanOrEqual(7);
    expect(c.mean_difference).toBeGreaterThan(0);
    expect(c.interval.low).toBeGreaterThan(0);
    expect(c.interval.low).toBeLessThanOrEqual(c.mean_difference);
    expect(c.interval.high).toBeGreaterThanOrEqual(c.mean_difference);
    expect(c.significant).toBe(true);
    expect(c.aggregate.contains).toEqual({ a: 0, b: 1, difference: 1 });
    // Seeded by the run ids: the same comparison gives the same interval.
    const again = await ok(a, 'compare_experiment_runs', { run_a: runA, run_b: runB, resamples: 2000 });
    expect(again.interval).toEqual(c.interval);
    const reversed = await ok(a, 'compare_experiment_runs', { run_a: runB, run_b: runA });
    expect(reversed.mean_difference).toBeCloseTo(-c.mean_difference, 12);
    // Same run against itself: no difference, an interval of zero width.
    const self = await ok(a, 'compare_experiment_runs', { run_a: runA, run_b: runA });
    expect([self.mean_difference, self.interval.low, self.interval.high, self.significant]).toEqual([0, 0, 0, false]);
  });

  it('answers bad runs with clear errors', async () => {
    const ghost = '00000000-0000-4000-8000-000000000000';
    await fails(a, 'run_experiment', { template_id: ghost, dataset_id: datasetId }, /Prompt template .* not found/);
    await fails(a, 'run_experiment', { template_id: templateId, dataset_id: ghost }, /Dataset .* not found/);
    await fails(a, 'run_experiment', { template_id: templateId, dataset_id: datasetId, versions: [9] }, /no version 9/);
    await fails(a, 'run_experiment', { template_id: templateId, dataset_id: datasetId, labels: ['production'] }, /Label 'production' is not deployed/);
    await fails(a, 'run_experiment', { template_id: templateId, dataset_id: datasetId, provider: 'nope' }, /No LLM provider 'nope'/);
    const misfit = await ok(a, 'create_dataset', { name: 'misfit', cases: [{ variables: { topic: 'ok' } }, { variables: { subject: 'x' } }] });
    const e = await fails(a, 'run_experiment', { template_id: templateId, dataset_id: misfit.dataset_id }, /Case 1 does not fit version 2: missing variable\(s\): topic.*unknown variable\(s\): subject/);
    expect(e.problems[0]).toMatchObject({ case_index: 1, version: 2 });
    const typedMisfit = await ok(a, 'create_dataset', { name: 'typed misfit', cases: [{ variables: { topic: 7 } }] });
    await fails(a, 'run_experiment', { template_id: templateId, dataset_id: typedMisfit.dataset_id }, /topic must be string, got integer/);
    const big = await ok(a, 'create_dataset', { name: 'big', cases: Array.from({ length: 300 }, (_, i) => ({ variables: { topic: `t${i}` } })) });
    await fails(a, 'run_experiment', { template_id: templateId, dataset_id: big.dataset_id, versions: [1, 2] }, /600 cells .* at most 500/);
    await fails(a, 'get_experiment_run', { run_id: ghost }, /Experiment run .* not found/);
    const other = await ok(a, 'create_dataset', { name: 'other', cases: [{ variables: { topic: 'x' } }] });
    const runC = (await ok(a, 'run_experiment', { template_id: templateId, dataset_id: other.dataset_id, models: ['gc-local:delay=1500'] })).run_id;
    await fails(a, 'compare_experiment_runs', { run_a: runA, run_b: runC }, /only succeeded runs can be compared/);
    await finished(a, runC);
    await fails(a, 'compare_experiment_runs', { run_a: runA, run_b: runC }, /different datasets/);
  });

  it("keeps another user's (and another scope's) datasets and runs invisible", async () => {
    for (const client of [stranger, unbound]) {
      await fails(client, 'get_experiment_run', { run_id: runA }, /not_found/);
      await fails(client, 'compare_experiment_runs', { run_a: runA, run_b: runB }, /not_found/);
      await fails(client, 'run_experiment', { template_id: templateId, dataset_id: datasetId }, /not_found/);
      await fails(client, 'generate_synthetic_tests', { template_id: templateId }, /not_found/);
      const l = await ok(client, 'list_datasets', {});
      expect(l.datasets.map((d: { dataset_id: string }) => d.dataset_id)).not.toContain(datasetId);
    }
    // Their own template cannot run on our dataset either.
    const theirs = await ok(stranger, 'create_prompt_template', { name: 'explain', template: 'About {{topic}}' });
    await fails(stranger, 'run_experiment', { template_id: theirs.template_id, dataset_id: datasetId }, /Dataset .* not found/);
  });

  it('records a failed provider call as a failed cell (overall 0) and finishes the run', async () => {
    await ok(a, 'gc_provider_set', { name: 'down', api: 'openai', base_url: 'http://127.0.0.1:9/v1', default_model: 'gpt-4o-mini' });
    const d = await ok(a, 'create_dataset', { name: 'two', cases: [{ variables: { topic: 'tides' }, contains: ['tides'] }, { variables: { topic: 'comets' } }] });
    const r = await finished(a, (await ok(a, 'run_experiment', { template_id: templateId, dataset_id: d.dataset_id, provider: 'down' })).run_id);
    expect(r.status).toBe('succeeded');
    expect(r.models).toEqual(['gpt-4o-mini']);
    for (const c of r.cells) {
      expect(c.status).toBe('failed');
      expect(c.error).toMatch(/^provider /);
      expect(c.output).toBeNull();
    }
    expect(r.aggregates[0]).toMatchObject({ failed: 2, overall: 0, contains: null });
    expect(r.cost_micros).toBe(0);
  });

  it('runs for an unbound key on the server default provider', async () => {
    const t = await ok(unbound, 'create_prompt_template', { name: 'mine', template: 'Say {{word}}' });
    const d = await ok(unbound, 'create_dataset', { name: 'words', cases: [{ variables: { word: 'hello' }, contains: ['hello'] }] });
    const r = await finished(unbound, (await ok(unbound, 'run_experiment', { template_id: t.template_id, dataset_id: d.dataset_id })).run_id);
    expect(r.status).toBe('succeeded');
    expect(r.cells[0].scores.contains).toBe(1);
    expect(r.models).toEqual(['gc-local']);
  });

  it('is a Pro tool: a free key is refused', async () => {
    await fails(free, 'create_dataset', { name: 'x', cases: [{ variables: {} }] }, /plan/);
    await fails(free, 'run_experiment', { template_id: templateId, dataset_id: datasetId }, /plan/);
  });
});
