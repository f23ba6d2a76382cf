import { z } from 'zod';
import { SKILL_CATEGORIES } from './skills.js';

const verdict = z.enum(['SAFE', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL']);

/** A scan's findings: the rule, its severity, the line and what it saw. */
export const skillFindings = z.array(z.looseObject({ rule: z.string(), severity: z.string(), line: z.number().int(), message: z.string() }));
export const skillVerdict = verdict;

/**
 * skillResponse (skills.ts) as a schema: the community routes' skill and the gc_skill_* tools' result, one
 * declaration for both. `body` only where the caller asked for it.
 */
export const skillSchema = z.looseObject({
  skill_id: z.string(),
  name: z.string(),
  tagline: z.string(),
  category: z.enum(SKILL_CATEGORIES),
  body: z.string().optional(),
  install_snippet: z.string().nullable(),
  status: z.enum(['draft', 'published']),
  visibility: z.enum(['private', 'published']),
  owned: z.boolean(),
  enabled: z.boolean(),
  enabled_at: z.string().nullable(),
  scan: z.looseObject({ score: z.number(), verdict, acceptable: z.boolean(), findings: skillFindings, scanner_version: z.string() }),
  published_at: z.string().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
