// Skill scan verdicts the host needs without loading the scanner (workers/skills/scan.ts).

/** A scan's verdict: SAFE or its worst finding's severity. */
export type SkillVerdict = 'SAFE' | 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';

/** Verdicts a skill may be enabled with (the spec's "persisted scan verdict acceptable"). */
export const ACCEPTABLE_VERDICTS: readonly SkillVerdict[] = ['SAFE', 'LOW', 'MEDIUM'];
