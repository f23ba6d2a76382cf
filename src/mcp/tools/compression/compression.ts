import { z } from 'zod';
import { FIDELITIES } from '../../../../workers/shared/fidelity.js';
import { savingsPercent } from '../../../../workers/shared/stats.js';
import { ESCAPE, META_FORMAT } from '../../../../workers/shared/metaTokenFormat.js';
import { compressRepository } from '../../../domain/compression/code.js';
import { DEFAULT_MAX_DESCRIPTION_CHARS, type ToolDef } from '../../../domain/compression/manifest.js';
import { getPreservedOriginal, pagePreservedOriginals, preservedStats, PRESERVE_ABOVE_SAVINGS } from '../../../domain/compression/originals.js';
import { compressManifest, compressToolOutput, decodeMetaTokens, encodeMetaTokens, filterCliOutput } from '../../../domain/compression/toolOutput.js';
import { invalidInput, notFound } from '../../../domain/errors.js';
import { defineTool } from '../../tool.js';
import { blob, int, manifestStats } from '../outputs.js';
import { iso, isoOrNull } from '../../../lib/time.js';

/** Input caps of the tool-output and meta-token tools: one call stays a short pool task. */
export const MAX_TOOL_OUTPUT_CHARS = 128_000;
export const MAX_META_CHARS = 64_000;

const toolDef = z
  .object({
    name: z.string().min(1).max(256),
    description: z.string().max(100_000).optional(),
    // z.custom keeps the very same value (no re-parse), so the schema's JSON stays byte-identical.
    inputSchema: z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { message: 'inputSchema must be a JSON object' }).optional(),
  })
  .passthrough();

export const compressionTools = [
  defineTool({
    name: 'compress_tool_output',
    output: z.looseObject({
      compressed_output: z.string(),
      original_tokens: z.number().int(),
      compressed_tokens: z.number().int(),
      tokens_saved: z.number().int(),
      savings_percent: z.number(),
      lines_in: z.number().int(),
      lines_out: z.number().int(),
      unchanged: z.boolean(),
    }),
    description:
      'Compresses command or tool output (logs, builds, tests, stack traces): collapses repeated and near-duplicate lines with counts, keeps error/warning lines with context and stack frames, elides noise; file paths, error codes, URLs and UUIDs are kept verbatim. Never longer than the input.',
    input: z
      .object({
        output: z.string().max(MAX_TOOL_OUTPUT_CHARS).describe('The raw tool output'),
        max_lines: z.number().int().min(20).max(5000).default(200).describe('Elide plain lines beyond this many'),
        context_lines: z.number().int().min(0).max(10).default(2),
        tool_name: z.string().max(200).optional().describe('The command that produced the output (recorded in the result only)'),
      })
      .strict(),
    async handler(args, { call }) {
      const r = await compressToolOutput(call, args.output, { maxLines: args.max_lines, contextLines: args.context_lines });
      return {
        result: {
          compressed_output: r.text,
          original_tokens: r.original_tokens,
          compressed_tokens: r.compressed_tokens,
          tokens_saved: r.original_tokens - r.compressed_tokens,
          savings_percent: savingsPercent(r.original_tokens, r.compressed_tokens),
          lines_in: r.lines_in,
          lines_out: r.lines_out,
          collapsed_runs: r.collapsed_runs,
          collapsed_lines: r.collapsed_lines,
          elided_lines: r.elided_lines,
          noise_lines: r.noise_lines,
          important_lines: r.important_lines,
          identifiers_kept: r.identifiers,
          unchanged: r.unchanged,
          ...(args.tool_name ? { tool_name: args.tool_name } : {}),
        },
      };
    },
  }),
  defineTool({
    name: 'filter_cli_output',
    description:
      "Cuts a test runner's, compiler's or package manager's output (vitest, jest, pytest, cargo, go test, tsc, npm; others generically) to its failures with their detail, errors and summary; passing tests, progress and library stack frames are folded into counted markers. Lines are kept verbatim.",
    output: z.looseObject({
      filtered_output: z.string(),
      detected: z.string(),
      summary: z.array(z.string()),
      failure_lines: int,
      error_lines: int,
      folded: z.looseObject({ passed: int, progress: int, frames: int, other: int }),
      lines_in: int,
      lines_out: int,
      original_tokens: int,
      filtered_tokens: int,
      tokens_saved: int,
      savings_percent: z.number(),
      unchanged: z.boolean(),
    }),
    input: z
      .object({
        output: z.string().max(MAX_TOOL_OUTPUT_CHARS).describe('The raw output'),
        command: z.string().max(500).optional().describe('The command that produced it (helps detection)'),
        max_block_lines: z.number().int().min(5).max(500).default(40).describe('Detail lines kept per failure'),
      })
      .strict(),
    async handler(args, { call }) {
      const r = await filterCliOutput(call, args.output, { command: args.command, blockLines: args.max_block_lines });
      return {
        result: {
          filtered_output: r.filtered_output,
          detected: r.detected,
          summary: r.summary,
          failure_lines: r.failure_lines,
          error_lines: r.error_lines,
          folded: r.folded,
          lines_in: r.lines_in,
          lines_out: r.unchanged ? r.lines_in : r.lines_out,
          original_tokens: r.original_tokens,
          filtered_tokens: r.filtered_tokens,
          tokens_saved: r.original_tokens - r.filtered_tokens,
          savings_percent: savingsPercent(r.original_tokens, r.filtered_tokens),
          unchanged: r.unchanged,
        },
      };
    },
  }),
  defineTool({
    name: 'compress_meta_tokens',
    description:
      'Lossless compression: frequent multi-token substrings become single dictionary symbols (format gc-meta-tokens/1). Returns the dictionary and the encoded text; mode decompress (or decode: true) with encoded + dictionary restores the input exactly.',
    // One object, not a union: MCP lists an outputSchema of type object. compress sets the encoding fields, decompress text.
    output: z.looseObject({
      mode: z.enum(['compress', 'decompress']),
      format: z.string(),
      escape: z.string().optional(),
      encoded: z.string().optional(),
      dictionary: z.record(z.string(), z.string()).optional(),
      original_tokens: int.optional(),
      total_tokens: int.optional(),
      tokens_saved: int.optional(),
      text: z.string().optional(),
    }),
    input: z
      .object({
        mode: z.enum(['compress', 'decompress']).default('compress'),
        decode: z.boolean().optional().describe('Alias of mode: decompress'),
        text: z.string().max(MAX_META_CHARS).optional().describe('Text to compress'),
        encoded: z.string().max(MAX_META_CHARS * 2).optional().describe('Encoded text to restore'),
        dictionary: z.record(z.string(), z.string()).optional().describe('Dictionary returned by compress'),
        // compress returns format and escape beside encoded and dictionary: they may be passed back as they came.
        format: z.literal(META_FORMAT).optional().describe(`Format returned by compress (only ${META_FORMAT})`),
        escape: z.literal(ESCAPE).optional().describe('Escape character returned by compress (only U+E000)'),
        max_entries: z.number().int().min(1).max(2048).default(256),
      })
      .strict(),
    async handler(args, { call }) {
      const decode = args.decode ?? args.mode === 'decompress';
      if (decode) {
        if (args.encoded === undefined || args.dictionary === undefined) {
          throw invalidInput('decompress needs encoded and dictionary', [{ loc: ['encoded'], msg: 'Required', type: 'invalid_type' }]);
        }
        const text = await decodeMetaTokens(call, args.encoded, args.dictionary);
        return { result: { mode: 'decompress', format: META_FORMAT, text, characters: text.length } };
      }
      if (args.text === undefined) throw invalidInput('compress needs text', [{ loc: ['text'], msg: 'Required', type: 'invalid_type' }]);
      const r = await encodeMetaTokens(call, args.text, args.max_entries);
      const { encoding: enc, original_tokens: original, encoded_tokens: encoded, dictionary_tokens: dict } = r;
      const total = encoded + dict;
      return {
        result: {
          mode: 'compress',
          format: enc.format,
          escape: enc.escape,
          encoded: enc.encoded,
          dictionary: enc.dictionary,
          dictionary_entries: Object.keys(enc.dictionary).length,
          original_tokens: original,
          encoded_tokens: encoded,
          dictionary_tokens: dict,
          total_tokens: total,
          tokens_saved: original - total,
          savings_percent: savingsPercent(original, total),
          decode_instructions:
            'Scan the encoded text: U+E000 means "take the next character literally"; any other character in U+E001..U+F8FF is replaced by its dictionary entry; everything else is literal.',
        },
      };
    },
  }),
  defineTool({
    name: 'compress_mcp_registry',
    description:
      'Shrinks a list of MCP tool definitions: each description is cut to its first sentence (at most max_description_chars); every inputSchema is kept byte for byte.',
    output: z.looseObject({ tools: z.array(blob), ...manifestStats }),
    input: z
      .object({
        tools: z.array(toolDef).min(1).max(2000),
        max_description_chars: z.number().int().min(20).max(2000).default(DEFAULT_MAX_DESCRIPTION_CHARS),
      })
      .strict(),
    async handler(args, { call }) {
      const { compressed, ...stats } = await compressManifest(call, args.tools as ToolDef[], args.max_description_chars, args.tools, (tools) => tools);
      return { result: { tools: compressed, ...stats } };
    },
  }),
  defineTool({
    name: 'gc_compress_manifest',
    description:
      'Compresses an MCP server manifest (a tools/list result: {tools: [...]}, other fields passed through): shorter descriptions, each inputSchema kept byte for byte.',
    output: z.looseObject({ manifest: z.looseObject({ tools: z.array(blob) }), ...manifestStats }),
    input: z
      .object({
        manifest: z.object({ tools: z.array(toolDef).min(1).max(2000) }).passthrough(),
        max_description_chars: z.number().int().min(20).max(2000).default(DEFAULT_MAX_DESCRIPTION_CHARS),
      })
      .strict(),
    async handler(args, { call }) {
      const envelope = args.manifest;
      const { compressed, ...stats } = await compressManifest(call, envelope.tools as ToolDef[], args.max_description_chars, envelope, (tools) => ({ ...envelope, tools }));
      return { result: { manifest: compressed, ...stats } };
    },
  }),
  defineTool({
    name: 'get_original_output',
    scope: 'mcp:read',
    advisory: true,
    description: 'Returns an original preserved when a compression removed more than 80% of the tokens (original_id from the compression response).',
    output: z.looseObject({ original_id: z.string(), content: z.string(), content_tokens: int, created_at: z.string() }),
    input: z.object({ original_id: z.string().uuid() }).strict(),
    async handler({ original_id }, ctx) {
      const row = await getPreservedOriginal(ctx.services.db, ctx.principal.userId, original_id);
      if (!row) throw notFound(`No preserved original ${original_id}`);
      return { result: { original_id, content: row.content, content_tokens: row.content_tokens, created_at: iso(row.created_at) } };
    },
  }),
  defineTool({
    name: 'list_tee_entries',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description: 'Lists the originals kept for get_original_output (compressions that removed more than 80% of the tokens), newest first, with a preview.',
    output: z.looseObject({
      entries: z.array(z.looseObject({ original_id: z.string(), content_tokens: int, chars: int, preview: z.string(), created_at: z.string() })),
      page: int,
      page_size: int,
      total: int,
    }),
    input: z
      .object({
        page: z.number().int().min(1).max(1_000_000).default(1),
        page_size: z.number().int().min(1).max(100).default(20),
        preview_chars: z.number().int().min(0).max(1000).default(160),
      })
      .strict(),
    async handler({ page, page_size, preview_chars }, ctx) {
      const { rows, total } = await pagePreservedOriginals(ctx.services.db, ctx.principal.userId, page, page_size, preview_chars);
      return {
        result: {
          entries: rows.map((r) => ({ original_id: r.id, content_tokens: r.content_tokens, chars: r.chars, preview: r.preview, created_at: iso(r.created_at) })),
          page,
          page_size,
          total,
        },
      };
    },
  }),
  defineTool({
    name: 'tee_store_stats',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description: 'What the store of originals (get_original_output) holds for you: entries, tokens, bytes, oldest and newest, and the rule that fills it.',
    output: z.looseObject({ entries: int, content_tokens: int, bytes: int, oldest: z.string().nullable(), newest: z.string().nullable(), preserve_above_savings_percent: z.number() }),
    input: z.object({}).strict(),
    async handler(_args, ctx) {
      const s = await preservedStats(ctx.services.db, ctx.principal.userId);
      return {
        result: {
          entries: s.entries,
          content_tokens: s.content_tokens,
          bytes: s.bytes,
          oldest: isoOrNull(s.oldest),
          newest: isoOrNull(s.newest),
          preserve_above_savings_percent: PRESERVE_ABOVE_SAVINGS,
        },
      };
    },
  }),
  defineTool({
    name: 'compress_codebase',
    description:
      'Structural compression of several source files: parse, dependency graph, PageRank, BM25 on the query and blast radius around focus_symbols, fused by reciprocal rank fusion and rendered within token_budget.',
    // A core tool (listed by default): its schema names the text and the token figures only.
    output: z.looseObject({
      output: z.string(),
      original_tokens: int,
      compressed_tokens: int,
      tokens_saved: int,
      savings_percent: z.number(),
      result_incomplete: z.boolean(),
      not_found: z.array(z.string()),
    }),
    input: z
      .object({
        files: z
          .array(z.object({ path: z.string().min(1).max(1024), content: z.string().max(2_000_000), language: z.string().max(32).optional() }).strict())
          .min(1)
          .max(500),
        query: z.string().max(2000).optional(),
        focus_symbols: z.array(z.string().min(1).max(256)).max(50).optional(),
        token_budget: z.number().int().min(64).max(200_000).optional(),
        fidelity: z.enum(FIDELITIES).optional(),
      })
      .strict()
      .refine((a) => a.files.reduce((s, f) => s + f.content.length, 0) <= 8_000_000, { message: 'files exceed 8,000,000 characters in total', path: ['files'] }),
    async handler(args, { call }) {
      const r = await compressRepository(call, {
        files: args.files,
        query: args.query ?? null,
        focus_symbols: args.focus_symbols,
        token_budget: args.token_budget,
        fidelity: args.fidelity,
      });
      return {
        result: {
          output: r.output,
          files: r.files,
          units: r.units,
          edges: r.edges,
          languages: r.languages,
          parsers: r.parsers,
          original_tokens: r.original_tokens,
          compressed_tokens: r.compressed_tokens,
          tokens_saved: r.tokens_saved,
          savings_percent: r.savings_percent,
          token_budget: r.token_budget,
          fidelity: r.fidelity,
          query: r.query,
          ranking: r.ranking.slice(0, 50),
          blast_radius: r.blast_radius,
          result_incomplete: r.result_incomplete,
          not_found: r.not_found,
        },
      };
    },
  }),
];
