import { z } from 'zod';
import type { VariableSpec } from '../../../../workers/prompts/templates.js';
import { createDataset, datasetResponse, listDatasets, MAX_CASES } from '../../../domain/prompts/datasets.js';
import { aggregates, cellResponse, compareRuns, createExperimentRun, getExperimentRun, MAX_CELLS, resultsOf, runSummary } from '../../../domain/prompts/experiments.js';
import { kickExperiments } from '../../../domain/prompts/runner.js';
import { getTemplate, getVersion, LABELS, storedVariables } from '../../../domain/prompts/templates.js';
import { invalid, invalidInput } from '../../../domain/errors.js';
import { scopeOf } from '../../../domain/memory/memories.js';
import { defineTool } from '../../tool.js';
import { int, rows } from '../outputs.js';

const SCOPE_NOTE = "Scoped to the caller and the key's project (an unbound key uses the user's own scope).";
const uuid = (what: string) => z.string().uuid().describe(what);
const MAX_DOCUMENT_CHARS = 200_000;

const testCase = z
  .object({
    variables: z.record(z.string(), z.unknown()).default({}).describe('Values of the template variables for this case'),
    expected: z.string().max(20_000).optional().describe('Exact expected output (exact_match, and the fidelity reference)'),
    contains: z.array(z.string().min(1).max(500)).max(50).optional().describe('Strings the output should contain (case-insensitive; score = share found)'),
    json_schema: z.record(z.string(), z.unknown()).optional().describe('JSON schema the output (JSON, optionally in a ``` block) must satisfy'),
    source: z.string().max(200).optional(),
  })
  .strict();

/** Output shapes: a dataset (datasetResponse) and a run (runSummary). */
const datasetOut = z.looseObject({ dataset_id: z.string(), name: z.string(), description: z.string().nullable(), case_count: int, source: z.string(), created_at: z.string(), cases: rows.optional() });
const runShape = {
  run_id: z.string(),
  template_id: z.string(),
  dataset_id: z.string(),
  versions: z.array(int),
  models: z.array(z.string()),
  provider: z.string(),
  status: z.string(),
  error: z.string().nullable(),
  progress: z.looseObject({ done: int, total: int }),
  tokens: z.looseObject({ input: int, output: int }),
  cost_micros: z.number(),
  cost_usd: z.number(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
};
const runOut = z.looseObject(runShape);
/** A run named inside another result (its full summary is what get_experiment_run returns). */
const runRef = z.looseObject({ run_id: z.string(), status: z.string(), versions: z.array(int), models: z.array(z.string()) });

function decodeOffset(cursor: string | undefined): number {
  if (!cursor) return 0;
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{1,8}$/.test(raw)) throw invalidInput('invalid cursor', [{ loc: ['cursor'], msg: 'invalid cursor', type: 'value_error.cursor' }]);
  return Number(raw);
}

export const experimentTools = [
  defineTool({
    name: 'create_dataset',
    scope: 'mcp:write',
    advisory: true,
    description: `Creates a dataset of test cases (1-${MAX_CASES}) for run_experiment: each case has template variables and, optionally, expected (exact match), contains (strings) and json_schema (checked to compile). ${SCOPE_NOTE}`,
    output: datasetOut,
    input: z.object({ name: z.string().trim().min(1).max(200), description: z.string().max(2000).optional(), cases: z.array(testCase).min(1).max(MAX_CASES) }).strict(),
    async handler(args, ctx) {
      const row = await createDataset(ctx.call, scopeOf(ctx.principal), { name: args.name, description: args.description, cases: args.cases, source: 'manual' });
      return { result: datasetResponse(row, false) };
    },
  }),
  defineTool({
    name: 'list_datasets',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: `Lists datasets newest first (limit 1-100, default 20, opaque cursor); include_cases adds each dataset's cases. ${SCOPE_NOTE}`,
    output: z.looseObject({ datasets: z.array(datasetOut), total: int, next_cursor: z.string().nullable() }),
    input: z.object({ limit: z.number().int().min(1).max(100).default(20), cursor: z.string().max(100).optional(), include_cases: z.boolean().default(false) }).strict(),
    async handler(args, ctx) {
      const offset = decodeOffset(args.cursor);
      const { total, rows } = await listDatasets(ctx.services.db, scopeOf(ctx.principal), { limit: args.limit, offset });
      const next = offset + rows.length < total ? Buffer.from(String(offset + rows.length)).toString('base64url') : null;
      return { result: { datasets: rows.map((r) => datasetResponse(r, args.include_cases)), total, next_cursor: next } };
    },
  }),
  defineTool({
    name: 'generate_synthetic_tests',
    scope: 'mcp:write',
    advisory: true,
    description: `Derives test cases without a model call: from a document, one case per passage (paragraphs, else sentence groups) with the passage in document_variable (default: the template's first text variable) and its salient terms as 'contains'; from a template alone, typed sample values for each variable. save_as stores them as a dataset. ${SCOPE_NOTE}`,
    output: z.looseObject({ cases: rows, count: int, dataset_id: z.string().nullable() }),
    input: z
      .object({
        template_id: uuid('Template whose variables the cases fill').optional(),
        version: z.number().int().min(1).optional(),
        label: z.enum(LABELS).optional(),
        document: z.string().min(1).max(MAX_DOCUMENT_CHARS).optional(),
        document_variable: z.string().max(64).optional(),
        count: z.number().int().min(1).max(100).default(10),
        terms: z.number().int().min(1).max(20).default(5).describe('Salient terms per passage'),
        save_as: z.string().trim().min(1).max(200).optional().describe('Store the cases as a dataset of this name'),
      })
      .strict()
      .refine((a) => a.template_id !== undefined || a.document !== undefined, { message: 'give template_id, document or both', path: ['document'] }),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      let variables: VariableSpec[] = [{ name: args.document_variable ?? 'document', type: 'string', required: true }];
      if (args.template_id) {
        const t = await getTemplate(ctx.services.db, s, args.template_id);
        variables = storedVariables(await getVersion(ctx.services.db, t, { version: args.version, label: args.label })).variables;
        if (args.document_variable !== undefined && !variables.some((v) => v.name === args.document_variable)) {
          throw invalid(`document_variable '${args.document_variable}' is not a variable of the template (${variables.map((v) => v.name).join(', ') || 'none'})`);
        }
        if (args.document !== undefined && !args.document_variable && !variables.some((v) => ['string', 'scalar', 'any'].includes(v.type))) {
          throw invalid('The template has no text variable to carry the document; name one with document_variable');
        }
      }
      const cases = await ctx.call.compute('syntheticCases', { variables, document: args.document ?? null, documentVariable: args.document_variable ?? null, count: args.count, terms: args.terms });
      if (!cases.length) throw invalid('The document yields no passage of at least 8 words');
      const saved = args.save_as ? await createDataset(ctx.call, s, { name: args.save_as, cases, source: args.document ? 'synthetic:document' : 'synthetic:template' }) : null;
      return { result: { cases, count: cases.length, dataset_id: saved?.id ?? null } };
    },
  }),
  defineTool({
    name: 'run_experiment',
    scope: 'mcp:write',
    advisory: true,
    description: `Runs a template's versions (numbers and/or labels; default the latest) × a dataset's cases × models (default the provider's default model) in the background and returns the run id at once. Every case is checked to render first. Model calls go through the project's provider (default: the server's local one; an unbound key can use only that); each cell is scored: exact_match, contains, json_valid and fidelity (issue detection of the output against the expected answer, else the prompt). At most ${MAX_CELLS} cells. Durable: resumes after a restart. ${SCOPE_NOTE}`,
    output: runOut,
    input: z
      .object({
        template_id: uuid('Template to run'),
        versions: z.array(z.number().int().min(1)).max(10).optional(),
        labels: z.array(z.enum(LABELS)).max(3).optional(),
        dataset_id: uuid('Dataset whose cases are run'),
        models: z.array(z.string().trim().min(1).max(100)).max(10).optional(),
        provider: z.string().trim().min(1).max(100).default('default'),
        max_tokens: z.number().int().min(1).max(8192).default(256),
        temperature: z.number().min(0).max(2).default(0),
      })
      .strict(),
    async handler(args, ctx) {
      const run = await createExperimentRun(ctx.call, scopeOf(ctx.principal), {
        templateId: args.template_id,
        versions: args.versions,
        labels: args.labels,
        datasetId: args.dataset_id,
        models: args.models,
        provider: args.provider,
        maxTokens: args.max_tokens,
        temperature: args.temperature,
      });
      kickExperiments(ctx.services);
      return { result: runSummary(run) };
    },
  }),
  defineTool({
    name: 'get_experiment_run',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: `An experiment run: status (queued, running, succeeded, failed), progress, tokens and cost, aggregates per (version, model) and, unless include_cells is false, every cell's output and scores. ${SCOPE_NOTE}`,
    output: z.looseObject({ ...runShape, aggregates: rows, cells: rows.optional() }),
    input: z.object({ run_id: uuid('run_id returned by run_experiment'), include_cells: z.boolean().default(true) }).strict(),
    async handler(args, ctx) {
      const db = ctx.services.db;
      const run = await getExperimentRun(db, scopeOf(ctx.principal), args.run_id);
      const rows = await resultsOf(db, run.id);
      return { result: { ...runSummary(run), aggregates: aggregates(rows), ...(args.include_cells ? { cells: rows.map(cellResponse) } : {}) } };
    },
  }),
  defineTool({
    name: 'compare_experiment_runs',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: `Compares two succeeded runs over the same dataset: per-case overall scores and differences (b minus a), aggregate differences per metric, and a paired percentile bootstrap interval of the mean difference (computed in the pool; seeded by the run ids, so repeatable). ${SCOPE_NOTE}`,
    output: z.looseObject({
      run_a: runRef,
      run_b: runRef,
      aggregate: z.record(z.string(), z.looseObject({ a: z.number().nullable(), b: z.number().nullable(), difference: z.number().nullable() })),
      mean_difference: z.number(),
      interval: z.looseObject({ low: z.number(), high: z.number(), confidence: z.number(), resamples: int }),
      significant: z.boolean(),
      cases: z.array(z.looseObject({ case_index: int, a: z.number(), b: z.number(), difference: z.number() })),
      better: z.looseObject({ a: int, b: int, tied: int }),
    }),
    input: z
      .object({
        run_a: uuid('Baseline run'),
        run_b: uuid('Candidate run'),
        resamples: z.number().int().min(100).max(100_000).default(2000),
        confidence: z.number().min(0.5).max(0.999).default(0.95),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await compareRuns(ctx.call, scopeOf(ctx.principal), args.run_a, args.run_b, { resamples: args.resamples, confidence: args.confidence }) };
    },
  }),
];
