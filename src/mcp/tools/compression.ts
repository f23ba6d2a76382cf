import { z } from 'zod';
import { FIDELITIES } from '../../../workers/shared/fidelity.js';
import { compressToolDefs, DEFAULT_MAX_DESCRIPTION_CHARS, type ToolDef } from '../../domain/compression/manifest.js';
import { META_FORMAT } from '../../../workers/tools/metaTokens.js';
import { getPreservedOriginal } from '../../domain/compression/originals.js';
import { TaskError } from '../../pool/pool.js';
import { defineTool, ToolError, type ToolContext } from '../tool.js';
import { savingsPercent } from '../../../workers/shared/stats.js';
import { countMany } from './pooled.js';

/**
 * compress_tool_output and compress_meta_tokens run their pure, linear-time passes on the event loop
 * (no worker task exists for them yet); these caps keep one call bounded to a few milliseconds.
 */
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

async function manifestStats(ctx: ToolContext, before: unknown, after: unknown) {
  const [original, compressed] = await countMany(ctx, [JSON.stringify(before), JSON.stringify(after)]);
  return { original_tokens: original!, compressed_tokens: compressed!, tokens_saved: original! - compressed!, savings_percent: savingsPercent(original!, compressed!) };
}

function taskFailure(err: unknown): never {
  if (err instanceof TaskError) {
    if (err.name === 'BlastRadiusInputError') throw new ToolError('BlastRadiusInputError', err.message);
    if (err.name === 'CodeInputError') throw new ToolError('validation_error', err.message, { issues: [{ loc: ['files'], msg: err.message, type: 'value_error' }] });
  }
  throw err;
}

export const compressionTools = [
  defineTool({
    name: 'compress_tool_output',
    category: 'compression',
    plan: 'pro',
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
    async handler(args, ctx) {
      const options = { maxLines: args.max_lines, contextLines: args.context_lines };
      const r = await ctx.services.pool.run('compressToolOutput', { text: args.output, options }, ctx.signal);
      const [original, compressed] = r.unchanged ? await countMany(ctx, [args.output]).then((c) => [c[0]!, c[0]!]) : await countMany(ctx, [args.output, r.text]);
      return {
        result: {
          compressed_output: r.text,
          original_tokens: original!,
          compressed_tokens: compressed!,
          tokens_saved: original! - compressed!,
          savings_percent: savingsPercent(original!, compressed!),
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
        usage: { inputTokens: original!, outputTokens: compressed!, inputText: args.output },
      };
    },
  }),
  defineTool({
    name: 'compress_meta_tokens',
    category: 'compression',
    plan: 'pro',
    description:
      'Lossless compression: frequent multi-token substrings become single dictionary symbols (format gc-meta-tokens/1). Returns the dictionary and the encoded text; mode decompress (or decode: true) with encoded + dictionary restores the input exactly.',
    input: z
      .object({
        mode: z.enum(['compress', 'decompress']).default('compress'),
        decode: z.boolean().optional().describe('Alias of mode: decompress'),
        text: z.string().max(MAX_META_CHARS).optional().describe('Text to compress'),
        encoded: z.string().max(MAX_META_CHARS * 2).optional().describe('Encoded text to restore'),
        dictionary: z.record(z.string()).optional().describe('Dictionary returned by compress'),
        max_entries: z.number().int().min(1).max(2048).default(256),
      })
      .strict(),
    async handler(args, ctx) {
      const decode = args.decode ?? args.mode === 'decompress';
      if (decode) {
        if (args.encoded === undefined || args.dictionary === undefined) {
          throw new ToolError('validation_error', 'decompress needs encoded and dictionary', { issues: [{ loc: ['encoded'], msg: 'Required', type: 'invalid_type' }] });
        }
        const decoded = await ctx.services.pool.run('decodeMetaTokens', { encoded: args.encoded, dictionary: args.dictionary }, ctx.signal);
        if (!decoded.ok) throw new ToolError('validation_error', decoded.error, { issues: [{ loc: ['encoded'], msg: decoded.error, type: 'value_error' }] });
        const text = decoded.text;
        return { result: { mode: 'decompress', format: META_FORMAT, text, characters: text.length } };
      }
      if (args.text === undefined) throw new ToolError('validation_error', 'compress needs text', { issues: [{ loc: ['text'], msg: 'Required', type: 'invalid_type' }] });
      const r = await ctx.services.pool.run('encodeMetaTokens', { text: args.text, maxEntries: args.max_entries }, ctx.signal);
      const { encoding: enc, original_tokens: original, encoded_tokens: encoded, dictionary_tokens: dict } = r;
      const total = encoded! + dict!;
      return {
        result: {
          mode: 'compress',
          format: enc.format,
          escape: enc.escape,
          encoded: enc.encoded,
          dictionary: enc.dictionary,
          dictionary_entries: Object.keys(enc.dictionary).length,
          original_tokens: original!,
          encoded_tokens: encoded!,
          dictionary_tokens: dict!,
          total_tokens: total,
          tokens_saved: original! - total,
          savings_percent: savingsPercent(original!, total),
          decode_instructions:
            'Scan the encoded text: U+E000 means "take the next character literally"; any other character in U+E001..U+F8FF is replaced by its dictionary entry; everything else is literal.',
        },
        usage: { inputTokens: original!, outputTokens: total, inputText: args.text },
      };
    },
  }),
  defineTool({
    name: 'compress_mcp_registry',
    category: 'compression',
    plan: 'pro',
    description:
      'Shrinks a list of MCP tool definitions: each description is cut to its first sentence (at most max_description_chars); every inputSchema is kept byte for byte.',
    input: z
      .object({
        tools: z.array(toolDef).min(1).max(2000),
        max_description_chars: z.number().int().min(20).max(2000).default(DEFAULT_MAX_DESCRIPTION_CHARS),
      })
      .strict(),
    async handler(args, ctx) {
      const { tools, descriptions_shortened } = compressToolDefs(args.tools as ToolDef[], args.max_description_chars);
      const stats = await manifestStats(ctx, args.tools, tools);
      return {
        result: { tools, tool_count: tools.length, descriptions_shortened, ...stats },
        usage: { inputTokens: stats.original_tokens, outputTokens: stats.compressed_tokens, inputText: args.tools[0]?.name ?? null },
      };
    },
  }),
  defineTool({
    name: 'gc_compress_manifest',
    category: 'platform',
    plan: 'pro',
    description:
      'Compresses an MCP server manifest (a tools/list result: {tools: [...]}, other fields passed through): shorter descriptions, each inputSchema kept byte for byte.',
    input: z
      .object({
        manifest: z.object({ tools: z.array(toolDef).min(1).max(2000) }).passthrough(),
        max_description_chars: z.number().int().min(20).max(2000).default(DEFAULT_MAX_DESCRIPTION_CHARS),
      })
      .strict(),
    async handler(args, ctx) {
      const { tools, descriptions_shortened } = compressToolDefs(args.manifest.tools as ToolDef[], args.max_description_chars);
      const manifest = { ...args.manifest, tools };
      const stats = await manifestStats(ctx, args.manifest, manifest);
      return {
        result: { manifest, tool_count: tools.length, descriptions_shortened, ...stats },
        usage: { inputTokens: stats.original_tokens, outputTokens: stats.compressed_tokens, inputText: tools[0]?.name ?? null },
      };
    },
  }),
  defineTool({
    name: 'get_original_output',
    scope: 'mcp:read',
    category: 'general',
    plan: 'pro',
    advisory: true,
    description: 'Returns an original preserved when a compression removed more than 80% of the tokens (original_id from the compression response).',
    input: z.object({ original_id: z.string().uuid() }).strict(),
    async handler({ original_id }, ctx) {
      const row = await getPreservedOriginal(ctx.services.db, ctx.principal.userId, original_id);
      if (!row) throw new ToolError('not_found', `No preserved original ${original_id}`);
      return { result: { original_id, content: row.content, content_tokens: row.content_tokens, created_at: new Date(row.created_at).toISOString() } };
    },
  }),
  defineTool({
    name: 'compress_codebase',
    category: 'compression',
    plan: 'pro',
    description:
      'Structural compression of several source files: parse, dependency graph, PageRank, BM25 on the query and blast radius around focus_symbols, fused by reciprocal rank fusion and rendered within token_budget.',
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
    async handler(args, ctx) {
      try {
        const analyses = await ctx.services.pool.run('analyzeFiles', { files: args.files }, ctx.signal);
        const r = await ctx.services.pool.run(
          'structural',
          { analyses, query: args.query ?? null, focus_symbols: args.focus_symbols, token_budget: args.token_budget, fidelity: args.fidelity },
          ctx.signal,
        );
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
          usage: { inputTokens: r.original_tokens, outputTokens: r.compressed_tokens, fidelity: r.fidelity, inputText: args.query ?? args.files[0]!.path },
        };
      } catch (err) {
        return taskFailure(err);
      }
    },
  }),
];
