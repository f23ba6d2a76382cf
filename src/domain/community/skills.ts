// Community skills: SKILL.md texts users author, a moderator publishes, and anyone enables. Every text
// is scanned in the pool (workers/skills/scan.ts); the verdict of the stored text is persisted with it
// and gates enabling. The spec's state table (docs/skills.md):
//   author, verdict not CRITICAL -> draft, private   | author, CRITICAL -> nothing saved, findings returned
//   enable: published, or private and owned by the caller, and persisted verdict acceptable
//   disable: enabled -> disabled; not enabled -> no-op
import type { Principal } from '../../auth/principal.js';
import type { Db, Queryable } from '../../store/db.js';
import type { SkillScanInput, SkillScanResult, Verdict } from '../../../workers/skills/scan.js';
import { ACCEPTABLE_VERDICTS } from '../../../workers/shared/skillVerdicts.js';
import type { Call } from '../call.js';
import { conflict, DomainError, forbidden, notFound } from '../errors.js';
import { isoOrNull } from '../../lib/time.js';

export const SKILL_CATEGORIES = ['coding', 'devops', 'data', 'writing', 'security', 'productivity', 'research', 'other'] as const;
export type SkillCategory = (typeof SKILL_CATEGORIES)[number];
/** Largest SKILL.md body a skill may store; gc_skill_scan takes up to MAX_SCAN_CHARS. */
export const MAX_SKILL_BODY_CHARS = 200_000;
export const MAX_SCAN_CHARS = 1_000_000;
export const MAX_INSTALL_CHARS = 4_000;
export const SKILL_LIST_MAX = 100;

export interface AuthorInput {
  name: string;
  tagline: string;
  category: SkillCategory;
  body: string;
  installSnippet?: string | null;
}

export interface SkillRow {
  id: string;
  owner_id: string;
  name: string;
  tagline: string;
  category: string;
  body: string;
  install_snippet: string | null;
  status: 'draft' | 'published';
  visibility: 'private' | 'published';
  scan_score: number;
  scan_verdict: Verdict;
  scan_findings: unknown;
  scanner_version: string;
  published_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  enabled_at?: Date | string | null;
}

const COLUMNS = `s.id, s.owner_id, s.name, s.tagline, s.category, s.body, s.install_snippet, s.status, s.visibility, s.scan_score, s.scan_verdict,
  s.scan_findings, s.scanner_version, s.published_at, s.created_at, s.updated_at`;

const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

export function isAcceptable(verdict: Verdict): boolean {
  return ACCEPTABLE_VERDICTS.includes(verdict);
}

/** Runs the static scan in the pool: a large body never holds the event loop. */
export function scanSkillText(call: Call, input: SkillScanInput): Promise<SkillScanResult> {
  return call.compute('scanSkill', input, { field: 'body' });
}

/** The skill as a caller sees it; `body` only where asked (get, author), not in lists. */
export function skillResponse(s: SkillRow, callerId: string, withBody: boolean) {
  return {
    skill_id: s.id,
    name: s.name,
    tagline: s.tagline,
    category: s.category,
    ...(withBody ? { body: s.body } : {}),
    install_snippet: s.install_snippet,
    status: s.status,
    visibility: s.visibility,
    owned: s.owner_id === callerId,
    enabled: s.enabled_at !== null && s.enabled_at !== undefined,
    enabled_at: isoOrNull(s.enabled_at),
    scan: { score: Number(s.scan_score), verdict: s.scan_verdict, acceptable: isAcceptable(s.scan_verdict), findings: json(s.scan_findings), scanner_version: s.scanner_version },
    published_at: isoOrNull(s.published_at),
    created_at: isoOrNull(s.created_at),
    updated_at: isoOrNull(s.updated_at),
  };
}

/** The CRITICAL refusal of gc_skill_author: nothing is stored; the findings travel with the error. */
function criticalRefusal(scan: SkillScanResult): DomainError {
  const n = scan.counts.CRITICAL;
  return new DomainError('invalid', `The scan found ${n} critical finding${n === 1 ? '' : 's'}; the skill was not saved`, {
    code: 'scan_critical',
    extra: { saved: false, verdict: scan.verdict, score: scan.score, findings: scan.findings, scanner_version: scan.scanner_version },
  });
}

export async function authorSkill(call: Call, input: AuthorInput): Promise<{ skill: SkillRow; scan: SkillScanResult }> {
  const scan = await scanSkillText(call, { body: input.body, install_snippet: input.installSnippet, name: input.name, tagline: input.tagline });
  if (scan.verdict === 'CRITICAL') throw criticalRefusal(scan);
  const [skill] = await call.services.db.query<SkillRow>(
    `insert into community_skills as s (owner_id, name, tagline, category, body, install_snippet, scan_score, scan_verdict, scan_findings, scanner_version)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::jsonb, $10) returning ${COLUMNS}, null::timestamptz as enabled_at`,
    [call.principal.userId, input.name, input.tagline, input.category, input.body, input.installSnippet ?? null, scan.score, scan.verdict, JSON.stringify(scan.findings), scan.scanner_version],
  );
  return { skill: skill!, scan };
}

/** A skill the caller may see (published, or their own), with whether they enabled it; else not found. */
export async function visibleSkill(db: Queryable, userId: string, skillId: string): Promise<SkillRow> {
  const [row] = await db.query<SkillRow>(
    `select ${COLUMNS}, e.enabled_at from community_skills s
     left join community_skill_enablements e on e.skill_id = s.id and e.user_id = $2
     where s.id = $1 and (s.visibility = 'published' or s.owner_id = $2)`,
    [skillId, userId],
  );
  if (!row) throw notFound('Skill not found');
  return row;
}

export type ListScope = 'available' | 'enabled';

export async function listSkills(
  db: Queryable,
  userId: string,
  options: { scope: ListScope; category?: SkillCategory; limit: number; offset: number },
): Promise<{ rows: SkillRow[]; total: number }> {
  const params: unknown[] = [userId];
  const where =
    options.scope === 'enabled' ? ['e.user_id is not null'] : ["(s.visibility = 'published' or s.owner_id = $1)"];
  if (options.category) {
    params.push(options.category);
    where.push(`s.category = $${params.length}`);
  }
  const from = `from community_skills s left join community_skill_enablements e on e.skill_id = s.id and e.user_id = $1 where ${where.join(' and ')}`;
  const [count] = await db.query<{ n: number | string }>(`select count(*) as n ${from}`, params);
  const rows = await db.query<SkillRow>(
    `select ${COLUMNS}, e.enabled_at ${from} order by ${options.scope === 'enabled' ? 'e.enabled_at desc' : 's.created_at desc'}, s.id limit ${options.limit} offset ${options.offset}`,
    params,
  );
  return { rows, total: Number(count?.n ?? 0) };
}

export async function enableSkill(db: Db, userId: string, skillId: string): Promise<{ skill: SkillRow; changed: boolean }> {
  return db.transaction(async (tx) => {
    const skill = await visibleSkill(tx, userId, skillId);
    if (!isAcceptable(skill.scan_verdict)) {
      throw conflict(`The skill's scan verdict is ${skill.scan_verdict}; only ${ACCEPTABLE_VERDICTS.join(', ')} skills can be enabled`, {
        code: 'scan_verdict_unacceptable',
        extra: { verdict: skill.scan_verdict, score: Number(skill.scan_score) },
      });
    }
    const inserted = await tx.query<{ enabled_at: Date | string }>(
      'insert into community_skill_enablements (user_id, skill_id) values ($1, $2) on conflict do nothing returning enabled_at',
      [userId, skillId],
    );
    const changed = inserted.length > 0;
    return { skill: changed ? { ...skill, enabled_at: inserted[0]!.enabled_at } : skill, changed };
  });
}

/** Disables for the caller; a skill that is visible but not enabled is a no-op (changed false). */
export async function disableSkill(db: Db, userId: string, skillId: string): Promise<{ changed: boolean }> {
  return db.transaction(async (tx) => {
    const deleted = await tx.query('delete from community_skill_enablements where user_id = $1 and skill_id = $2 returning skill_id', [userId, skillId]);
    if (deleted.length > 0) return { changed: true };
    await visibleSkill(tx, userId, skillId);
    return { changed: false };
  });
}

export function requireModerator(principal: Principal): void {
  if (!principal.isAdmin) throw forbidden('Moderation is available to administrators only');
}

/**
 * A moderator publishes a skill: visible to every user from then on. Only a skill whose persisted
 * verdict is acceptable can be published; publishing a published skill changes nothing.
 */
export async function publishSkill(db: Db, moderator: Principal, skillId: string): Promise<{ skill: SkillRow; changed: boolean }> {
  requireModerator(moderator);
  return db.transaction(async (tx) => {
    const [skill] = await tx.query<SkillRow>(`select ${COLUMNS}, null::timestamptz as enabled_at from community_skills s where s.id = $1 for update`, [skillId]);
    if (!skill) throw notFound('Skill not found');
    if (skill.visibility === 'published') return { skill, changed: false };
    if (!isAcceptable(skill.scan_verdict)) {
      throw conflict(`The skill's scan verdict is ${skill.scan_verdict}; it cannot be published`, { code: 'scan_verdict_unacceptable', extra: { verdict: skill.scan_verdict } });
    }
    const [row] = await tx.query<SkillRow>(
      `update community_skills s set status = 'published', visibility = 'published', published_at = now(), published_by = $2, updated_at = now()
       where s.id = $1 returning ${COLUMNS}, null::timestamptz as enabled_at`,
      [skillId, moderator.userId],
    );
    return { skill: row!, changed: true };
  });
}

/** Draft skills waiting for a moderator, oldest first. */
export async function draftSkills(db: Queryable, limit: number): Promise<SkillRow[]> {
  return db.query<SkillRow>(`select ${COLUMNS}, null::timestamptz as enabled_at from community_skills s where s.status = 'draft' order by s.created_at, s.id limit ${limit}`);
}
