import { z } from 'zod';
import { detectIssues } from '../../../domain/compression/detection.js';
import { defineTool } from '../../tool.js';
import { int } from '../outputs.js';

const pair = {
  original_text: z.string().min(1),
  compressed_text: z.string().min(1),
};

/** What the engine finds (DetectResult); verify_compression adds its verdict. */
const found = z.looseObject({
  quality_score: z.number(),
  issues_found: int,
  issues: z.array(
    z.looseObject({ type: z.enum(['hallucination', 'blind_spot']), severity: z.enum(['low', 'medium', 'high']), description: z.string(), location: z.string().nullable() }),
  ),
});

/** The issue-detection engine behind three tools; each picks which checks run. */
export const qualityTools = [
  defineTool({
    name: 'detect_hallucination',
    readOnly: true,
    advisory: true,
    description: 'Claims in the compressed text that the original does not support (changed numbers, flipped negations, unsupported sentences).',
    output: found,
    input: z.object(pair).strict(),
    handler: async (args, ctx) => ({
      result: { ...(await detectIssues(ctx.call, { ...args, check_hallucination: true, check_blind_spots: false })) },
    }),
  }),
  defineTool({
    name: 'check_blind_spots',
    readOnly: true,
    advisory: true,
    description: 'Critical information of the original that the compressed text lost: warnings, limits, error codes, identifiers, whole topics.',
    output: found,
    input: z.object(pair).strict(),
    handler: async (args, ctx) => ({
      result: { ...(await detectIssues(ctx.call, { ...args, check_hallucination: false, check_blind_spots: true })) },
    }),
  }),
  defineTool({
    name: 'verify_compression',
    readOnly: true,
    advisory: true,
    description: 'Both checks on a compression, with a verdict: pass (score at least 0.8 and no high-severity issue), review or fail.',
    output: found.extend({ verdict: z.enum(['pass', 'review', 'fail']) }),
    input: z.object(pair).strict(),
    async handler(args, ctx) {
      const found = await detectIssues(ctx.call, { ...args, check_hallucination: true, check_blind_spots: true });
      const high = found.issues.some((i) => i.severity === 'high');
      const verdict = found.quality_score >= 0.8 && !high ? 'pass' : found.quality_score >= 0.5 ? 'review' : 'fail';
      return { result: { verdict, ...found } };
    },
  }),
];
