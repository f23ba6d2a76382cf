import { z } from 'zod';
import { detectIssues, DETECTION_PLANS } from '../domain/compression/detection.js';
import { defineRoute } from '../http/route.js';
import { int } from './schemas.js';

/** workers/detect DetectResult. */
const detectResponse = z.object({
  issues_found: int,
  issues: z.array(z.object({ type: z.enum(['hallucination', 'blind_spot']), severity: z.enum(['low', 'medium', 'high']), description: z.string(), location: z.string().nullable() })),
  quality_score: z.number(),
});

const DetectBody = z.object({
  original_text: z.string().min(1),
  compressed_text: z.string().min(1),
  check_hallucination: z.boolean().default(true),
  check_blind_spots: z.boolean().default(true),
});

export const detectRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/detect-issues',
    auth: 'key',
    plan: DETECTION_PLANS,
    body: DetectBody,
    response: detectResponse,
    handler: async ({ body, call }) => ({ body: await detectIssues(call, body) }),
  }),
];
