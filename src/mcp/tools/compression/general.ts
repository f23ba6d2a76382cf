import { z } from 'zod';
import { FIDELITIES } from '../../../../workers/shared/fidelity.js';
import { contextWindowFor, recommendForTokens, worthCompressing } from '../../../../workers/shared/recommend.js';
import { defineTool } from '../../tool.js';
import { COMPRESSION_PRESETS, COMPRESSION_PROFILES, FIDELITY_LABEL } from './profiles.js';
import { tokensOf } from './tokens.js';
import { recommendCompression } from '../../../domain/compression/recommend.js';

/** A session's compression profile after overrides (get/set_compression_profile). */
const profileOutput = z.looseObject({
  profile: z.string(),
  fidelity: z.enum(FIDELITIES),
  skeleton_ratio: z.number(),
  chunk_size: z.number().int(),
  session_id: z.string(),
});

const sizeInput = {
  text: z.string().optional().describe('The document; or give tokens instead'),
  tokens: z.number().int().min(0).optional().describe('Token count when the text is not sent'),
  model: z.string().max(100).optional(),
  context_window: z.number().int().positive().optional(),
};

export const generalTools = [
  defineTool({
    name: 'recommend_compression',
    readOnly: true,
    advisory: true,
    description:
      'Which tool fits this content (code, a runner\'s output, JSON, YAML, XML, an HTML page, prose) and at which level, whether compressing pays at all, and the arguments to call it with.',
    input: z
      .object({
        text: z.string().min(1).max(2_000_000),
        query: z.string().max(2000).optional(),
        model: z.string().max(100).optional(),
        context_window: z.number().int().positive().optional(),
        used_tokens: z.number().int().min(0).optional(),
        filename: z.string().max(1024).optional().describe('Helps tell the language of code'),
        command: z.string().max(500).optional().describe('The command that printed the text, if any'),
      })
      .strict(),
    output: z.looseObject({
      should_compress: z.boolean(),
      kind: z.string(),
      language: z.string().nullable(),
      recommended_tool: z.string().nullable(),
      recommended_arguments: z.record(z.string(), z.unknown()).nullable(),
      fidelity: z.enum(FIDELITIES),
      original_tokens: z.number().int(),
      estimated_tokens_after: z.number().int(),
      context_window: z.number().int().nullable(),
      reasons: z.array(z.string()),
    }),
    async handler(args, ctx) {
      return { result: await recommendCompression(ctx.call, args) };
    },
  }),
  defineTool({
    name: 'get_compression_presets',
    readOnly: true,
    advisory: true,
    description: 'Named presets (code-review, chat, research, aggressive, balanced) with the fidelity and options each uses.',
    output: z.looseObject({
      presets: z.record(z.string(), z.looseObject({ fidelity: z.enum(FIDELITIES), use_query: z.boolean(), preserve_code: z.boolean(), description: z.string() })),
      default: z.string(),
    }),
    input: z.object({}).strict(),
    handler: () => ({ result: { presets: COMPRESSION_PRESETS, default: 'balanced' } }),
  }),
  defineTool({
    name: 'get_compression_profile',
    readOnly: true,
    advisory: true,
    description: 'The active session profile with skeleton_ratio, fidelity and chunk_size, after explicit overrides.',
    output: profileOutput,
    input: z.object({}).strict(),
    handler: (_args, { session }) => ({
      result: { profile: session.profile, ...COMPRESSION_PROFILES[session.profile], ...session.overrides, session_id: session.id },
    }),
  }),
  defineTool({
    name: 'set_compression_profile',
    advisory: true,
    description: 'Sets the session profile (minimal, summary, balanced (default), detailed, full); explicit parameters override it.',
    output: profileOutput,
    input: z
      .object({
        profile: z.enum(['minimal', 'summary', 'balanced', 'detailed', 'full']).default('balanced'),
        fidelity: z.enum(FIDELITIES).optional(),
        skeleton_ratio: z.number().gt(0).max(1).optional(),
        chunk_size: z.number().int().min(64).max(8192).optional(),
      })
      .strict(),
    handler: ({ profile, ...overrides }, { session }) => {
      session.profile = profile;
      session.overrides = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
      return { result: { profile, ...COMPRESSION_PROFILES[profile], ...session.overrides, session_id: session.id } };
    },
  }),
  defineTool({
    name: 'recommend_fidelity',
    readOnly: true,
    advisory: true,
    description: 'Suggests ABSTRACT, OUTLINE, STRUCTURE, DETAILED or RAW from the document size and the context window.',
    output: z.looseObject({
      recommended_fidelity: z.string(),
      fidelity: z.enum(FIDELITIES),
      original_tokens: z.number().int(),
      estimated_compressed_tokens: z.number().int(),
      context_window: z.number().int().nullable(),
      reason: z.string(),
    }),
    input: z.object(sizeInput).strict(),
    async handler(args, ctx) {
      const tokens = await tokensOf(ctx, args);
      const window = args.context_window ?? contextWindowFor(args.model) ?? null;
      const rule = recommendForTokens(tokens, window);
      return {
        result: {
          recommended_fidelity: FIDELITY_LABEL[rule.fidelity],
          fidelity: rule.fidelity,
          original_tokens: tokens,
          estimated_compressed_tokens: rule.estimated,
          context_window: window,
          reason: rule.reason,
        },
      };
    },
  }),
  defineTool({
    name: 'should_compress',
    readOnly: true,
    advisory: true,
    description: 'Whether compressing this input pays off, and at which fidelity.',
    output: z.looseObject({
      should_compress: z.boolean(),
      reason: z.string(),
      recommended_fidelity: z.enum(FIDELITIES),
      original_tokens: z.number().int(),
      estimated_tokens_after: z.number().int(),
    }),
    input: z.object({ ...sizeInput, used_tokens: z.number().int().min(0).optional() }).strict(),
    async handler(args, ctx) {
      const tokens = await tokensOf(ctx, args);
      const window = args.context_window ?? contextWindowFor(args.model) ?? null;
      const rule = recommendForTokens(tokens, window);
      const { worth: yes, share } = worthCompressing(tokens, window, args.used_tokens ?? 0);
      return {
        result: {
          should_compress: yes,
          reason: yes
            ? `${tokens} tokens${share !== null ? ` (${Math.round(share * 100)}% of the context window with what is used)` : ''}: compress at ${rule.fidelity}`
            : `${tokens} tokens: small enough to send as is`,
          recommended_fidelity: yes ? rule.fidelity : 'raw',
          original_tokens: tokens,
          estimated_tokens_after: yes ? rule.estimated : tokens,
        },
      };
    },
  }),
];
