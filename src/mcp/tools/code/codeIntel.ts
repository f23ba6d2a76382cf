import { z } from 'zod';
import {
  boundCodeProject, ingestRepository, MAX_FILES_PER_CALL, MAX_PATH_CHARS, MAX_TOTAL_CHARS, queryCodeIndex,
} from '../../../domain/codeIntel/service.js';
import { invalidInput } from '../../../domain/errors.js';
import type { QueryMethod } from '../../../../workers/codeIntel/indexThread.js';
import { PACKS, RULE_IDS } from '../../../../workers/shared/codeScanRules.js';
import { defineTool, type ToolContext } from '../../tool.js';
import { int, rows } from '../outputs.js';

const symbol = z.string().trim().min(1).max(512).describe('A definition: bare name (save), Container.name (Store.save), path:name (src/store.ts:save) or a unit id from an earlier result');
const limit = (d: number, max = 1000) => z.number().int().min(1).max(max).default(d);

async function ask<T>(ctx: ToolContext, method: QueryMethod, args: unknown[]): Promise<T> {
  const project = await boundCodeProject(ctx.services, ctx.principal);
  return queryCodeIndex<T>(ctx.call, project, method, args);
}

const blastFocus = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]).map((s) => s.trim()).filter(Boolean);

function blastInputError(tool: string, field: string) {
  const msg = `${tool} requires ${field}: the symbol(s) whose change you want to assess`;
  return invalidInput(msg, [{ loc: [field], msg, type: 'BlastRadiusInputError' }], { code: 'BlastRadiusInputError' });
}

/** Output shapes: definitions (path and lines; refs, search hits and dead-code candidates add their own fields), counts maps, the summary. */
const defs = z.array(z.looseObject({ id: z.string(), path: z.string(), start_line: int, end_line: int }));
const counts = z.record(z.string(), int);
const summaryOut = z.looseObject({
  files: int,
  lines: int,
  languages: counts,
  parsers: counts,
  units: int,
  units_by_kind: counts,
  edges: int,
  edges_by_kind: counts,
  top_symbols: rows,
  top_files: rows,
  most_imported_files: rows,
  external_modules: rows,
});
const refsOut = z.looseObject({
  symbol: z.string(),
  resolved: z.array(z.string()),
  not_found: z.boolean(),
  references: defs,
  total: int,
  truncated: z.boolean(),
  unresolved_mentions: rows,
  unresolved_total: int,
});
const blastEntries = z.array(z.looseObject({ id: z.string(), path: z.string(), distance: int, score: z.number() }));

/** Code intelligence over the project's repository index (docs/code-intelligence.md). */
export const codeIntelTools = [
  defineTool({
    name: 'gc_orient',
    scope: 'mcp:write',
    needsProject: true,
    description:
      "Call first: builds or updates the project's repository index from files (parsed once with tree-sitter: python, javascript, typescript, tsx, java, go, rust, c, cpp; other languages by lines) and removes deleted paths; unchanged files are skipped, so later calls send only what changed. Returns what was indexed and an orientation: languages, definitions, the most central symbols and files, external modules. The other gc_* code tools answer from this index. Bad files (binary, over 1,000,000 characters, path traversal) are listed in skipped and never fail the call.",
    output: z.looseObject({
      index: z.looseObject({
        generation: int,
        indexed: rows,
        unchanged: int,
        deleted: z.array(z.string()),
        not_found_deleted: z.array(z.string()),
        skipped: z.array(z.looseObject({ path: z.string(), reason: z.string() })),
        files: int,
        units: int,
        edges: int.nullable(),
        update: z.looseObject({ mode: z.string() }),
      }).optional(),
      orientation: summaryOut,
    }),
    input: z
      .object({
        files: z
          .array(z.object({ path: z.string().max(MAX_PATH_CHARS * 4), content: z.string(), language: z.string().max(32).optional() }).strict())
          .max(MAX_FILES_PER_CALL)
          .default([]),
        deleted: z.array(z.string().max(MAX_PATH_CHARS * 4)).max(MAX_FILES_PER_CALL).default([]),
        top: z.number().int().min(1).max(100).default(10).describe('How many central symbols and files the orientation lists'),
      })
      .strict()
      .refine((a) => a.files.reduce((s, f) => s + f.content.length, 0) <= MAX_TOTAL_CHARS, { message: `files exceed ${MAX_TOTAL_CHARS} characters in total; send them in several calls`, path: ['files'] }),
    async handler(args, ctx) {
      const project = await boundCodeProject(ctx.services, ctx.principal);
      const index = args.files.length || args.deleted.length ? await ingestRepository(ctx.call, project, { files: args.files, deleted: args.deleted }) : null;
      const orientation = await queryCodeIndex<Record<string, unknown>>(ctx.call, project, 'summary', [args.top]);
      return { result: { ...(index ? { index } : {}), orientation } };
    },
  }),
  defineTool({
    name: 'gc_defs',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'Where a symbol is defined: path, line range, kind, signature and doc of each definition. from_path resolves a bare name as that file sees it (its own definitions, its imports, the language scope). Several definitions set ambiguous; none sets not_found.',
    output: z.looseObject({ symbol: z.string(), from: z.string().nullable(), definitions: defs, total: int, ambiguous: z.boolean(), not_found: z.boolean() }),
    input: z.object({ symbol, from_path: z.string().max(MAX_PATH_CHARS).optional(), limit: limit(50) }).strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'defs', [args.symbol, args.from_path ?? null, args.limit]) };
    },
  }),
  defineTool({
    name: 'gc_refs',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'Who uses a symbol: each definition that calls it or names it as a type, with the lines. A use that resolved to several same-named definitions is marked ambiguous with its candidate count; uses of the name the index could not attribute are listed in unresolved_mentions with the reason.',
    output: refsOut,
    input: z.object({ symbol, limit: limit(200) }).strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'refs', [args.symbol, ['call', 'reference'], args.limit]) };
    },
  }),
  defineTool({
    name: 'gc_callers',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'Functions and methods that call a symbol, with the call lines (ambiguous calls and unattributed ones said, as in gc_refs). direction: callees lists what the symbol calls instead.',
    output: z.looseObject({ symbol: z.string(), resolved: z.array(z.string()), not_found: z.boolean(), references: defs.optional(), callees: defs.optional(), total: int }),
    input: z.object({ symbol, direction: z.enum(['callers', 'callees']).default('callers'), limit: limit(200) }).strict(),
    async handler(args, ctx) {
      if (args.direction === 'callees') return { result: await ask(ctx, 'callees', [args.symbol, args.limit]) };
      return { result: await ask(ctx, 'refs', [args.symbol, ['call'], args.limit]) };
    },
  }),
  defineTool({
    name: 'gc_source',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description: 'The exact source text of a symbol (every definition it names), with its path and start_line/end_line.',
    output: z.looseObject({ symbol: z.string(), sources: z.array(z.looseObject({ id: z.string(), path: z.string(), start_line: int, end_line: int, text: z.string(), truncated: z.boolean() })), total: int, ambiguous: z.boolean(), not_found: z.boolean() }),
    input: z.object({ symbol, max_chars: z.number().int().min(100).max(200_000).default(20_000), limit: limit(5, 50) }).strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'source', [args.symbol, args.max_chars, args.limit]) };
    },
  }),
  defineTool({
    name: 'gc_impact',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'What a change to these symbols would break: every definition that transitively calls or references them (distance = hops), grouped by file, nearest first. Unknown symbols are listed in not_found (result_incomplete).',
    output: z.looseObject({
      focus: z.array(z.string()),
      resolved: z.record(z.string(), z.array(z.string())),
      not_found: z.array(z.string()),
      result_incomplete: z.boolean(),
      depth: int,
      direct_dependents: int,
      dependents_total: int,
      dependents: blastEntries,
      truncated: z.boolean(),
      files: z.array(z.looseObject({ path: z.string(), units: int, nearest: int })),
    }),
    input: z
      .object({
        symbols: z.array(symbol).min(1).max(50).optional(),
        symbol: symbol.optional(),
        depth: z.number().int().min(1).max(8).default(3),
        limit: limit(200, 5000),
      })
      .strict(),
    async handler(args, ctx) {
      const focus = [...(args.symbols ?? []), ...(args.symbol ? [args.symbol] : [])];
      if (focus.length === 0) throw blastInputError('gc_impact', 'symbols');
      return { result: await ask(ctx, 'impact', [focus, args.depth, args.limit]) };
    },
  }),
  defineTool({
    name: 'gc_blast_radius',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'Blast radius of focus_symbol (required; omitting it returns BlastRadiusInputError): dependents (what breaks, upstream) and dependencies (what it relies on), scored 0.5^distance, with affected_files. A symbol that resolves to nothing is in not_found and sets result_incomplete.',
    output: z.looseObject({
      focus: z.array(z.string()),
      resolved: z.record(z.string(), z.array(z.string())),
      dependents: blastEntries,
      dependencies: blastEntries,
      dependents_total: int,
      dependencies_total: int,
      affected_files: z.array(z.string()),
      not_found: z.array(z.string()),
      result_incomplete: z.boolean(),
      truncated: z.boolean(),
      depth: int,
    }),
    input: z
      .object({
        focus_symbol: z.union([symbol, z.array(symbol).max(50)]).optional(),
        depth: z.number().int().min(1).max(8).default(8),
        limit: limit(200, 5000),
      })
      .strict(),
    async handler(args, ctx) {
      const focus = blastFocus(args.focus_symbol);
      if (focus.length === 0) throw blastInputError('gc_blast_radius', 'focus_symbol');
      return { result: await ask(ctx, 'blast', [focus, args.depth, args.limit]) };
    },
  }),
  defineTool({
    name: 'gc_repo_map',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      "A ranked map of the repository within token_budget: the most central definitions in full, then signatures, then names per file. Ranked by PageRank over the call/reference graph, personalised on focus_files and focus_symbols (as aider's repo map), fused with BM25 on query.",
    output: z.looseObject({
      map: z.string(),
      token_budget: int,
      map_tokens: int,
      repository_tokens: int,
      files: int,
      units: int,
      personalised: z.boolean(),
      query: z.string().nullable(),
      ranking: rows,
      not_found: z.array(z.string()),
      result_incomplete: z.boolean(),
    }),
    input: z
      .object({
        query: z.string().max(2000).optional(),
        focus_files: z.array(z.string().min(1).max(MAX_PATH_CHARS)).max(100).default([]),
        focus_symbols: z.array(symbol).max(50).default([]),
        token_budget: z.number().int().min(64).max(64_000).default(2048),
      })
      .strict(),
    async handler(args, ctx) {
      return {
        result: await ask(ctx, 'repoMap', [{ query: args.query?.trim() || null, focus_files: args.focus_files, focus_symbols: args.focus_symbols, token_budget: args.token_budget }]),
      };
    },
  }),
  defineTool({
    name: 'gc_scan',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      "Static security scan of the indexed repository with rule packs: secrets (hard-coded credentials, cloud and service tokens, private keys), injection (SQL built by concatenation/f-strings/templates, shell commands with interpolation, eval), deserialization (pickle, yaml.load without SafeLoader, Java ObjectInputStream, node-serialize), path-traversal (user input joined into file paths), weak-crypto (MD5/SHA-1 on passwords, DES/3DES, ECB, Math.random for tokens). Each finding: rule_id, severity, message, fingerprint (stable across runs and line moves: hash of rule, path and normalised evidence), matches (line, column), files, evidence (secrets masked), status (open, or suppressed when its fingerprint is in suppressed_fingerprints).",
    output: z.looseObject({
      packs: z.array(z.string()),
      rules: z.array(z.string()),
      files_scanned: int,
      findings: z.array(z.looseObject({ rule_id: z.string(), severity: z.string(), message: z.string(), fingerprint: z.string(), status: z.enum(['open', 'suppressed']) })),
      total: int,
      open: int,
      suppressed: int,
      truncated: z.boolean(),
      by_severity: counts,
      by_rule: counts,
    }),
    input: z
      .object({
        packs: z.array(z.enum(PACKS as [string, ...string[]])).max(PACKS.length).optional().describe('Rule packs to run (default: all)'),
        rules: z.array(z.enum(RULE_IDS)).max(RULE_IDS.length).optional().describe('Only these rule ids'),
        path_prefix: z.string().max(MAX_PATH_CHARS).optional(),
        min_severity: z.enum(['low', 'medium', 'high', 'critical']).default('low'),
        suppressed_fingerprints: z.array(z.string().regex(/^[0-9a-f]{32}$/)).max(10_000).default([]).describe('Fingerprints already triaged: reported with status suppressed, not counted as open'),
        limit: limit(200, 5000),
      })
      .strict(),
    async handler(args, ctx) {
      return {
        result: await ask(ctx, 'scan', [
          { packs: args.packs ?? null, rules: args.rules ?? null, path_prefix: args.path_prefix ?? null, min_severity: args.min_severity, suppressed: args.suppressed_fingerprints, limit: args.limit },
        ]),
      };
    },
  }),
  defineTool({
    name: 'gc_context_render',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'Renders chosen symbols and files into one text within token_budget, in the order given: each symbol in full when it fits, else its signature; each file whole when it fits, else its imports and definitions by centrality (full, signatures, names). include_dependencies adds the signatures of what the chosen symbols call while room remains. items says how each was rendered (full, signature, skeleton, omitted); unknown ones are in not_found.',
    output: z.looseObject({
      rendered: z.string(),
      tokens: int,
      token_budget: int,
      items: rows,
      omitted: z.array(z.string()),
      not_found: z.array(z.string()),
      result_incomplete: z.boolean(),
    }),
    input: z
      .object({
        symbols: z.array(symbol).max(100).default([]),
        files: z.array(z.string().min(1).max(MAX_PATH_CHARS)).max(100).default([]),
        token_budget: z.number().int().min(64).max(64_000).default(4000),
        include_dependencies: z.boolean().default(false),
      })
      .strict(),
    async handler(args, ctx) {
      if (args.symbols.length === 0 && args.files.length === 0) {
        const msg = 'gc_context_render needs symbols or files to render';
        throw invalidInput(msg, [{ loc: ['symbols'], msg, type: 'value_error.missing' }]);
      }
      return { result: await ask(ctx, 'contextRender', [{ symbols: args.symbols, files: args.files, token_budget: args.token_budget, include_dependencies: args.include_dependencies }]) };
    },
  }),
  defineTool({
    name: 'gc_agent_capsule',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      "A compact brief of the indexed repository for an agent's context, within token_budget: shape (files, languages, definitions), central files, key symbols with signatures and first doc line, entry points, external modules, and with query the matching definitions. Sections shrink or drop to fit (sections, dropped_sections say which).",
    output: z.looseObject({ capsule: z.string(), tokens: int, token_budget: int, sections: z.array(z.string()), dropped_sections: z.array(z.string()), files: int, units: int }),
    input: z
      .object({
        token_budget: z.number().int().min(64).max(16_000).default(800),
        query: z.string().max(2000).optional(),
        top: z.number().int().min(1).max(50).default(10),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'capsule', [{ token_budget: args.token_budget, query: args.query?.trim() || null, top: args.top }]) };
    },
  }),
  defineTool({
    name: 'gc_edit_plan',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'For a change request in plain words: the files and symbols to touch, ranked. BM25 over the index picks the definitions the request is about (role edit); their blast radius adds the code that uses them (role check, scored by distance). Files carry their best score, role, symbols and whether they are tests. not_found when nothing in the index matches the request.',
    output: z.looseObject({
      request: z.string(),
      not_found: z.boolean(),
      seeds: int,
      files: z.array(z.looseObject({ path: z.string(), score: z.number(), role: z.enum(['edit', 'check', 'test']), symbols: z.array(z.string()), is_test: z.boolean() })),
      symbols: rows,
      tests: z.array(z.string()),
      edit_files: int,
      check_files: int,
    }),
    input: z
      .object({
        request: z.string().trim().min(1).max(4000),
        max_files: z.number().int().min(1).max(200).default(15),
        max_symbols: z.number().int().min(1).max(500).default(30),
        depth: z.number().int().min(1).max(6).default(2),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'editPlan', [{ request: args.request, max_files: args.max_files, max_symbols: args.max_symbols, depth: args.depth }]) };
    },
  }),
  defineTool({
    name: 'search_code',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      "Searches the project's repository index: BM25 over each definition's identifiers (split on camelCase and snake_case), qualified name, docstring and path, fused (RRF) with embedding similarity over each definition's name, signature and docstring, so a question in other words still finds it. Returns definitions with path, lines, signature, score, bm25 and similarity.",
    output: z.looseObject({
      query: z.string(),
      mode: z.enum(['lexical', 'hybrid']),
      results: z.array(z.looseObject({ id: z.string(), path: z.string(), start_line: int, end_line: int, score: z.number(), bm25: z.number().nullable(), similarity: z.number().nullable() })),
      total: int,
    }),
    input: z.object({ query: z.string().trim().min(1).max(2000), limit: limit(20, 200) }).strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'search', [args.query, args.limit]) };
    },
  }),
  defineTool({
    name: 'detect_dead_code',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'Functions and methods of the indexed repository that nothing calls or references and that are not public API, dunder/lifecycle hooks, entry points or tests. Candidates, not proof: dynamic dispatch and reflection are invisible to the index.',
    output: z.looseObject({ candidates: defs, total: int, truncated: z.boolean() }),
    input: z.object({ path_prefix: z.string().max(MAX_PATH_CHARS).optional(), limit: limit(200, 5000) }).strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'deadCode', [args.path_prefix ?? null, args.limit]) };
    },
  }),
  defineTool({
    name: 'export_graph_json',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'The indexed repository as graphs in JSON: nodes (definitions with path, lines, PageRank), edges (call / reference, weight < 1 when a name was ambiguous), files and file_edges (resolved imports). path_prefix narrows it; max_nodes caps it (truncated says so).',
    output: z.looseObject({ nodes: rows, edges: rows, files: rows, file_edges: rows, truncated: z.boolean(), total_nodes: int, total_edges: int }),
    input: z.object({ path_prefix: z.string().max(MAX_PATH_CHARS).optional(), max_nodes: z.number().int().min(1).max(20_000).default(2000) }).strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'graph', [{ path_prefix: args.path_prefix ?? null, max_nodes: args.max_nodes }]) };
    },
  }),
  defineTool({
    name: 'export_graph_graphml',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'The indexed repository as a GraphML document (directed): definitions as nodes (label, kind, path, lines, exported, pagerank) with call/reference edges (kind, weight); with include_files, files as nodes too, with import edges and contains edges to their definitions. Opens in Gephi, yEd, NetworkX, graphology. path_prefix narrows it; max_nodes caps the definitions (truncated says so).',
    output: z.looseObject({ graphml: z.string(), nodes: int, edges: int, truncated: z.boolean(), total_nodes: int, total_edges: int, bytes: int }),
    input: z
      .object({
        path_prefix: z.string().max(MAX_PATH_CHARS).optional(),
        max_nodes: z.number().int().min(1).max(20_000).default(2000),
        include_files: z.boolean().default(true),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'graphml', [{ path_prefix: args.path_prefix ?? null, max_nodes: args.max_nodes, include_files: args.include_files }]) };
    },
  }),
  defineTool({
    name: 'visualize_graph_html',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'The indexed repository\'s call/reference graph as one self-contained HTML page (inline data, script and styles; nothing fetched from the network): the max_nodes most central definitions (PageRank) laid out by force, drawn as SVG, sized by PageRank, coloured by file; wheel zooms, drag pans, a click shows a node\'s callers and callees. Save html to a file and open it in a browser.',
    output: z.looseObject({ html: z.string(), nodes: int, edges: int, total_nodes: int, total_edges: int, truncated: z.boolean(), bytes: int }),
    input: z
      .object({
        path_prefix: z.string().max(MAX_PATH_CHARS).optional(),
        max_nodes: z.number().int().min(1).max(2000).default(300),
        title: z.string().max(200).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'visualize', [{ path_prefix: args.path_prefix ?? null, max_nodes: args.max_nodes, title: args.title ?? null }]) };
    },
  }),
  defineTool({
    name: 'generate_structural_summary',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      'A structural summary of the indexed repository: files, lines, languages, parser paths, definitions by kind, edges by kind, the most central symbols and files (PageRank), the most imported files and the external modules imported.',
    output: summaryOut,
    input: z.object({ top: z.number().int().min(1).max(100).default(15) }).strict(),
    async handler(args, ctx) {
      return { result: await ask(ctx, 'summary', [args.top]) };
    },
  }),
];
