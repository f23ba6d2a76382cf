// Levels nest (issue 48): what each level keeps is a superset of what the level below keeps, for every
// input, plain and with a query; each level lands within its budget or its result says why; without a
// query, balanced and above keep a README's lead and its first install and usage examples.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, DB_KIND, type TestServer } from '../helpers/server.js';
import { newKey } from '../helpers/users.js';
import { compressText } from '../../workers/text/index.js';
import { budgetFor } from '../../workers/shared/fidelity.js';
import { LEVELS, allLevels, corpusFiles, crossings, queryFor, sampleOf } from '../../bench/quality/properties.js';
import { realDoc } from './helpers.js';

/** Nesting, budgets and lengths of one text at every level; one line per broken property. */
async function propertyFailures(file: string, query?: string): Promise<string[]> {
  const text = readFileSync(file, 'utf8');
  const runs = await allLevels(text, query);
  const bad: string[] = [];
  for (let k = 0; k < LEVELS.length; k++) {
    const level = LEVELS[k]!;
    const r = runs[level]!.result;
    if (r.compressed_tokens > budgetFor(r.original_tokens, level) && !r.over_budget) bad.push(`${level} over budget without a reason: ${file}`);
    if (r.budget_tokens !== budgetFor(r.original_tokens, level)) bad.push(`${level} budget_tokens ${r.budget_tokens}: ${file}`);
    if (k === 0) continue;
    const below = runs[LEVELS[k - 1]!]!;
    const lost = crossings(below.kept, runs[level]!.kept);
    if (lost) bad.push(`${LEVELS[k - 1]} keeps ${lost} units ${level} drops${query ? ' (query)' : ''}: ${file}`);
    if (below.result.compressed_tokens > r.compressed_tokens) bad.push(`${LEVELS[k - 1]} longer than ${level}: ${file}`);
  }
  return bad;
}

describe('levels nest over installed READMEs and docs/*.md', () => {
  const files = corpusFiles();

  it(`plain: all ${files.length} files`, async () => {
    expect(files.length).toBeGreaterThan(300);
    const bad: string[] = [];
    for (const f of files) bad.push(...(await propertyFailures(f)));
    expect(bad.slice(0, 10), `${bad.length} failures`).toEqual([]);
  }, 600_000);

  // With a query (a heading of the file's own): a deterministic sample of 200 spread over the corpus.
  it('with a query: 200 files', async () => {
    const bad: string[] = [];
    for (const f of sampleOf(files, 200)) bad.push(...(await propertyFailures(f, queryFor(readFileSync(f, 'utf8')))));
    expect(bad.slice(0, 10), `${bad.length} failures`).toEqual([]);
  }, 600_000);

  it('a short input over its level budget says why (the kept text must outweigh its markers)', async () => {
    const text = [
      '# Cache', 'The cache keeps answers for 24 hours and evicts the least recently used entry first.',
      ...Array.from({ length: 12 }, (_, i) => `## Setting ${i}\n\nSet \`cache.option${i}\` to ${i * 8} to change how entry ${i} is kept in memory.`),
    ].join('\n\n');
    const r = await compressText({ text, fidelity: 'abstract', markerIds: true });
    expect(r.budget_tokens).toBe(budgetFor(r.original_tokens, 'abstract'));
    if (r.compressed_tokens > r.budget_tokens!) expect(r.over_budget).toBe('short_input');
    else expect(r.over_budget).toBeUndefined();
  });
});

describe('lead and setup kept without a query', () => {
  it('postgres.js at balanced opens with its feature list, Installation and a connect example', async () => {
    const text = realDoc('node_modules/postgres/README.md');
    for (const fidelity of ['balanced', 'detailed'] as const) {
      const out = (await compressText({ text, fidelity, markerIds: true })).compressed_text;
      expect(out, fidelity).toContain('Fastest full-featured node & deno client');
      expect(out, fidelity).toContain('$ npm install postgres');
      expect(out, fidelity).toContain("const sql = postgres({ /* options */ })");
      // The output opens with the logo (or its marker) and the feature list, not a marker hiding them.
      expect(out.indexOf('Fastest full-featured'), fidelity).toBeLessThan(out.indexOf('## Getting started'));
      expect(out.indexOf('Fastest full-featured'), fidelity).toBeLessThan(400);
    }
  });

  it('a README with a title and a lead paragraph keeps both at balanced and above, not at the cost of the budget', async () => {
    const api = Array.from({ length: 40 }, (_, i) => `### client.call${i}(options)\n\nCalls endpoint \`/v1/op${i}\` with a timeout of ${i + 5} seconds and returns a promise of the reply.`);
    const text = ['# fastclient', 'A small HTTP client for the Example API with retries and timeouts built in. It works in Node and browsers.', '## Install', '```sh\nnpm install fastclient\n```', '## Usage', '```js\nimport { Client } from "fastclient";\nconst client = new Client({ token: process.env.TOKEN });\nawait client.call0({});\n```', '## API', ...api].join('\n\n');
    for (const fidelity of ['balanced', 'detailed'] as const) {
      const r = await compressText({ text, fidelity, markerIds: true });
      for (const piece of ['# fastclient', 'A small HTTP client for the Example API', 'npm install fastclient', 'new Client({ token: process.env.TOKEN })']) expect(r.compressed_text, `${fidelity}: ${piece}`).toContain(piece);
      expect(r.compressed_tokens).toBeLessThanOrEqual(r.budget_tokens!);
    }
  });
});

describe(`a level over its budget says why over REST (${DB_KIND})`, () => {
  let server: TestServer;
  let key = '';
  beforeAll(async () => {
    server = await startTestServer();
    key = await newKey(server, 'pro');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('/v1/compress answers budget_tokens and over_budget when the output passes the budget, neither when it does not', async () => {
    const text = ['# Cache', 'The cache keeps answers for 24 hours and evicts the least recently used entry first.',
      ...Array.from({ length: 6 }, (_, i) => `Set \`cache.option${i}\` to ${i * 8} to change how entry ${i} is kept in memory for readers.`)].join('\n\n');
    for (const fidelity of LEVELS) {
      const res = await server.request('POST', '/v1/compress', { key, body: { text, fidelity } });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      const budget = budgetFor(res.json.original_tokens, fidelity);
      if (res.json.compressed_tokens > budget) {
        expect(res.json.budget_tokens, fidelity).toBe(budget);
        expect(['short_input', 'not_shorter'], fidelity).toContain(res.json.over_budget);
      } else expect(res.json.over_budget, fidelity).toBeUndefined();
    }
    const abstract = await server.request('POST', '/v1/compress', { key, body: { text, fidelity: 'abstract' } });
    expect(abstract.json.over_budget).toBe('short_input');
  });
});
