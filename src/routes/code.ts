import { z } from 'zod';
import { compressCode, compressRepository } from '../domain/compression/code.js';
import { defineRoute } from '../http/route.js';
import { fidelity, int, modelName, tokenizer, tokenStats } from './schemas.js';
import type { UnitKind } from '../../workers/code/types.js';
import { FIDELITIES } from '../../workers/shared/fidelity.js';

const UNIT_KINDS = ['function', 'method', 'class', 'interface', 'struct', 'enum', 'trait', 'impl', 'type', 'namespace', 'module'] as const satisfies readonly UnitKind[];
const common = { ...tokenStats, fidelity: z.enum(FIDELITIES), tokenizer, token_budget: int };
const unit = { id: z.string(), kind: z.enum(UNIT_KINDS), name: z.string(), container: z.string().nullable(), start_line: int, end_line: int, score: z.number() };

/** CompressCodeResponse (domain/compression/code.ts): the skeleton and what the parser found. */
const codeResponse = z.looseObject({
  ...common,
  skeleton: z.string(),
  language: z.string(),
  parser: z.enum(['tree-sitter', 'line-fallback', 'text']),
  imports: z.array(z.looseObject({ module: z.string(), names: z.array(z.string()), line: int, text: z.string() })),
  dependency_graph: z.looseObject({ nodes: z.array(z.looseObject({})), edges: z.array(z.looseObject({})) }),
  importance: z.array(z.looseObject(unit)),
  parse_errors: int,
  budget_note: z.string().nullable(),
  over_budget: z.enum(['floor', 'not_shorter']).optional(),
});

const blastEntry = z.looseObject({ id: z.string(), path: z.string(), name: z.string(), distance: int, score: z.number() });
/** workers/code StructuralResult without its markers (kept by the host). */
const structuralResponse = z.looseObject({
  ...common,
  output: z.string(),
  files: int,
  units: int,
  edges: int,
  languages: z.record(z.string(), int),
  parsers: z.record(z.string(), int),
  query: z.string().nullable(),
  ranking: z.array(z.looseObject({ ...unit, path: z.string(), rank: int, rendered: z.enum(['full', 'signature', 'outline', 'omitted']), signals: z.looseObject({}), signal_ranks: z.looseObject({}) })),
  blast_radius: z
    .looseObject({
      focus: z.array(z.string()),
      resolved: z.record(z.string(), z.array(z.string())),
      dependents: z.array(blastEntry),
      dependencies: z.array(blastEntry),
      affected_files: z.array(z.string()),
      not_found: z.array(z.string()),
      result_incomplete: z.boolean(),
    })
    .nullable(),
  result_incomplete: z.boolean(),
  not_found: z.array(z.string()),
  file_imports: z.array(z.looseObject({ path: z.string(), resolved: z.array(z.string()), unresolved: z.array(z.string()) })),
  timings_ms: z.looseObject({ graph: z.number(), rank: z.number(), render: z.number() }),
});

const CompressCodeBody = z.object({
  code: z.string(),
  language: z.string().max(40).nullish(),
  filename: z.string().max(500).nullish(),
  fidelity: fidelity.default('balanced'),
  model: modelName.nullish(),
});

const StructuralBody = z.object({
  files: z
    .array(z.object({ path: z.string().min(1).max(1000), content: z.string(), language: z.string().max(40).nullish() }))
    .min(1)
    .max(10_000),
  query: z.string().max(10_000).nullish(),
  focus_symbols: z.array(z.string().min(1).max(300)).max(100).optional(),
  blast_radius: z.boolean().optional(),
  token_budget: z.number().int().min(64).max(2_000_000).optional(),
  fidelity: fidelity.optional(),
  model: modelName.nullish(),
});

export const codeRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/compress-code',
    auth: 'key',
    usage: true,
    body: CompressCodeBody,
    response: codeResponse,
    handler: async ({ body, call }) => ({ body: await compressCode(call, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/compress-code/structural',
    auth: 'key',
    usage: true,
    body: StructuralBody,
    response: structuralResponse,
    repositoryBody: true,
    handler: async ({ body, call }) => ({ body: await compressRepository(call, body) }),
  }),
];
