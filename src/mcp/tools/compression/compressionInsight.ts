import { z } from 'zod';
import { FIDELITIES } from '../../../../workers/shared/fidelity.js';
import { evidenceStats } from '../../../domain/quality/evidence.js';
import { explainCompressionDecision } from '../../../domain/quality/explain.js';
import { calculateReward } from '../../../domain/quality/reward.js';
import { defineTool } from '../../tool.js';
import { int, rows } from '../outputs.js';

/** Longest text these tools take: issue detection aligns every segment pair it must. */
const MAX_TEXT = 500_000;
const pair = {
  original_text: z.string().min(1).max(MAX_TEXT),
  compressed_text: z.string().min(1).max(MAX_TEXT),
};

export const compressionInsightTools = [
  defineTool({
    name: 'calculate_reward',
    readOnly: true,
    advisory: true,
    description:
      'A 0-1 reward for a compression trading savings against fidelity: reward = (1+b^2)*s*f/(b^2*s+f), with s = token savings, f = the issue-detection quality score (as verify_compression reports it), b = fidelity_weight (default 2: fidelity counts twice).',
    output: z.looseObject({
      reward: z.number(),
      savings: z.number(),
      fidelity: z.number(),
      fidelity_weight: z.number(),
      original_tokens: int,
      compressed_tokens: int,
      tokens_saved: int,
      hallucinations: int,
      blind_spots: int,
      high_severity_issues: int,
      issues: rows,
      formula: z.string(),
    }),
    input: z
      .object({ ...pair, model: z.string().trim().min(1).max(100).optional(), fidelity_weight: z.number().min(0.1).max(10).default(2) })
      .strict(),
    async handler(args, ctx) {
      return { result: await calculateReward(ctx.call, args) };
    },
  }),
  defineTool({
    name: 'get_evidence_stats',
    readOnly: true,
    advisory: true,
    description:
      'How much of the original supports a compressed text or answer, claim by claim: verbatim, supported, partial or unsupported, with the original lines cited as evidence, overall shares, and the issue detection score.',
    output: z.looseObject({
      claims_total: int,
      verbatim: int,
      supported: int,
      partial: int,
      unsupported: int,
      supported_share: z.number(),
      mean_coverage: z.number(),
      original_coverage: z.number(),
      quality_score: z.number(),
      issues_found: int,
      issues: rows,
      claims: z.array(z.looseObject({ line: int, text: z.string(), support: z.enum(['verbatim', 'supported', 'partial', 'unsupported']), coverage: z.number(), evidence: rows })),
      claims_truncated: z.boolean(),
    }),
    input: z.object({ ...pair, max_segments: z.number().int().min(0).max(500).default(100) }).strict(),
    async handler(args, ctx) {
      return { result: await evidenceStats(ctx.call, args) };
    },
  }),
  defineTool({
    name: 'explain_compression_decision',
    readOnly: true,
    advisory: true,
    description:
      "Why each section of a text is kept or elided at a fidelity: the text engine's own per-unit scores (centrality, structural prior, information density, final priority with the query when given), each unit's rank and the cutoff, section by section.",
    output: z.looseObject({
      fidelity: z.enum(FIDELITIES),
      mode: z.enum(['plain', 'query-guided']),
      original_tokens: int,
      compressed_tokens: int,
      units_total: int,
      units_kept: int,
      budget_tokens: int,
      all_kept: z.enum(['fits_budget', 'not_shorter', 'raw', 'empty']).nullable(),
      cutoff_priority: z.number().nullable(),
      sections: z.array(z.looseObject({ section: z.string(), decision: z.enum(['kept', 'elided', 'partly_kept']), units_total: int, units_kept: int, why: z.string(), units: rows })),
      compressed_text: z.string().optional(),
    }),
    input: z
      .object({
        text: z.string().min(1).max(2_000_000),
        fidelity: z.enum(FIDELITIES).default('balanced'),
        query: z.string().trim().min(1).max(10_000).optional(),
        model: z.string().trim().min(1).max(100).optional(),
        max_units_per_section: z.number().int().min(0).max(200).default(10),
        include_compressed_text: z.boolean().default(false),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await explainCompressionDecision(ctx.call, args) };
    },
  }),
];
