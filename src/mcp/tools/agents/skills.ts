import { z } from 'zod';
import { decodeCursor, nextCursor } from '../../../domain/community/cursor.js';
import { MAX_POST_CHARS, MAX_TITLE_CHARS, postResponse, publishPost } from '../../../domain/community/posts.js';
import {
  authorSkill, disableSkill, enableSkill, listSkills, MAX_INSTALL_CHARS, MAX_SCAN_CHARS, MAX_SKILL_BODY_CHARS, scanSkillText, SKILL_CATEGORIES, SKILL_LIST_MAX,
  skillResponse, visibleSkill,
} from '../../../domain/community/skills.js';
import { ACCEPTABLE_VERDICTS } from '../../../../workers/shared/skillVerdicts.js';
import { defineTool } from '../../tool.js';
import { int } from '../outputs.js';
import { iso } from '../../../lib/time.js';
import { skillFindings, skillSchema, skillVerdict } from '../../../domain/community/skillSchema.js';

const verdict = skillVerdict;
const findings = skillFindings;
const skillOut = skillSchema;

const skillId = z.string().uuid().describe('skill_id returned by gc_skill_author or gc_skill_list');
const name = z.string().trim().min(1).max(80);
const tagline = z.string().trim().min(1).max(200);
const installSnippet = z.string().max(MAX_INSTALL_CHARS).describe('Shell snippet a user runs to install what the skill needs');
const VERDICTS = `Verdicts: SAFE, LOW, MEDIUM, HIGH, CRITICAL (the worst finding); acceptable for enabling: ${ACCEPTABLE_VERDICTS.join(', ')}.`;
const VISIBILITY = "Visible: published skills and the caller's own; another user's private skills are not found.";

export const skillTools = [
  defineTool({
    name: 'gc_skill_scan',
    output: z.looseObject({ score: z.number(), verdict, findings, counts: z.record(z.string(), int), scanner_version: z.string(), acceptable: z.boolean() }),
    advisory: true,
    readOnly: true,
    description:
      `Static analysis of a SKILL.md (and its install snippet): findings for secrets, shell injection, data-exfiltration URLs, prompt-injection phrases and dangerous install snippets, each with severity, location and line (secrets redacted); a 0-10 score (10 = nothing found). ${VERDICTS} Stores nothing.`,
    input: z
      .object({
        body: z.string().min(1).max(MAX_SCAN_CHARS),
        install_snippet: installSnippet.optional(),
        name: z.string().max(200).optional(),
        tagline: z.string().max(400).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const scan = await scanSkillText(ctx.call, { body: args.body, install_snippet: args.install_snippet, name: args.name, tagline: args.tagline });
      return { result: { ...scan, acceptable: ACCEPTABLE_VERDICTS.includes(scan.verdict) } };
    },
  }),
  defineTool({
    name: 'gc_skill_author',
    output: skillOut.extend({ saved: z.literal(true) }),
    scope: 'mcp:write',
    advisory: true,
    description:
      `Authors a community skill (name, tagline, category, SKILL.md body, optional install snippet). The text is scanned first: a CRITICAL verdict saves nothing and returns the findings as error scan_critical; otherwise the skill is stored as a private draft with its scan verdict. A moderator publishes it for everyone (docs/skills.md). ${VERDICTS}`,
    input: z
      .object({
        name,
        tagline,
        category: z.enum(SKILL_CATEGORIES),
        body: z.string().min(1).max(MAX_SKILL_BODY_CHARS).describe('The SKILL.md text (Markdown, optional front matter)'),
        install_snippet: installSnippet.optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const { skill } = await authorSkill(ctx.call, { name: args.name, tagline: args.tagline, category: args.category, body: args.body, installSnippet: args.install_snippet });
      return { result: { saved: true, ...skillResponse(skill, ctx.principal.userId, false) } };
    },
  }),
  defineTool({
    name: 'gc_skill_get',
    output: skillOut,
    advisory: true,
    readOnly: true,
    scope: 'mcp:read',
    description: `A skill with its SKILL.md body, install snippet, status, visibility, persisted scan and whether the caller enabled it. ${VISIBILITY}`,
    input: z.object({ skill_id: skillId }).strict(),
    async handler(args, ctx) {
      const skill = await visibleSkill(ctx.services.db, ctx.principal.userId, args.skill_id);
      return { result: skillResponse(skill, ctx.principal.userId, true) };
    },
  }),
  defineTool({
    name: 'gc_skill_list',
    output: z.looseObject({ scope: z.enum(['available', 'enabled']), skills: z.array(skillOut), total: int, next_cursor: z.string().nullable() }),
    advisory: true,
    readOnly: true,
    scope: 'mcp:read',
    description: `Lists skills without their bodies. scope available: published skills and the caller's own drafts, newest first; scope enabled: the skills the caller enabled, most recently enabled first. Optional category; limit 1-${SKILL_LIST_MAX} (default 20) and an opaque cursor.`,
    input: z
      .object({
        scope: z.enum(['available', 'enabled']).default('available'),
        category: z.enum(SKILL_CATEGORIES).optional(),
        limit: z.number().int().min(1).max(SKILL_LIST_MAX).default(20),
        cursor: z.string().max(100).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const offset = decodeCursor(args.cursor);
      const { rows, total } = await listSkills(ctx.services.db, ctx.principal.userId, { scope: args.scope, category: args.category, limit: args.limit, offset });
      return { result: { scope: args.scope, skills: rows.map((s) => skillResponse(s, ctx.principal.userId, false)), total, next_cursor: nextCursor(offset, rows.length, total) } };
    },
  }),
  defineTool({
    name: 'gc_skill_enable',
    output: z.looseObject({ skill_id: z.string(), enabled: z.literal(true), changed: z.boolean(), enabled_at: z.string() }),
    scope: 'mcp:write',
    advisory: true,
    description: `Enables a skill for the caller: a published skill, or the caller's own private one, whose persisted scan verdict is acceptable (else error scan_verdict_unacceptable). Enabling an enabled skill changes nothing (changed false). ${VISIBILITY}`,
    input: z.object({ skill_id: skillId }).strict(),
    async handler(args, ctx) {
      const { skill, changed } = await enableSkill(ctx.services.db, ctx.principal.userId, args.skill_id);
      return { result: { skill_id: skill.id, enabled: true, changed, enabled_at: iso(skill.enabled_at!) } };
    },
  }),
  defineTool({
    name: 'gc_skill_disable',
    output: z.looseObject({ skill_id: z.string(), enabled: z.literal(false), changed: z.boolean() }),
    scope: 'mcp:write',
    advisory: true,
    description: `Disables a skill for the caller. Disabling a skill that is not enabled is a no-op (changed false). ${VISIBILITY}`,
    input: z.object({ skill_id: skillId }).strict(),
    async handler(args, ctx) {
      const { changed } = await disableSkill(ctx.services.db, ctx.principal.userId, args.skill_id);
      return { result: { skill_id: args.skill_id, enabled: false, changed } };
    },
  }),
  defineTool({
    name: 'gc_publish_post',
    output: z.looseObject({ post_id: z.string(), slug: z.string(), title: z.string(), status: z.string(), created_at: z.string().nullable() }),
    scope: 'mcp:write',
    advisory: true,
    description: `Publishes a community post (Markdown body, optional title: else the first heading or line). Returns id, slug and status draft: every post starts as a draft and appears in the feed (GET /v1/community/feed) only after a moderator approves it.`,
    input: z
      .object({
        body: z.string().trim().min(1).max(MAX_POST_CHARS),
        title: z.string().trim().min(1).max(MAX_TITLE_CHARS).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const post = await publishPost(ctx.services.db, ctx.principal.userId, { body: args.body, title: args.title });
      return { result: postResponse(post, false) };
    },
  }),
];
