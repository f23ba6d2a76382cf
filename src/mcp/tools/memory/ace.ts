import { z } from 'zod';
import { curate } from '../../../domain/ace/curate.js';
import { executeCycle } from '../../../domain/ace/cycle.js';
import { applyDelta } from '../../../domain/ace/delta.js';
import { generate } from '../../../domain/ace/generate.js';
import { DEFAULT_PROVIDER } from '../../../domain/workflows/providers.js';
import {
  DEFAULT_PLAYBOOK, DEFAULT_SECTION, DEFAULT_SIMILARITY, ensurePlaybook, findPlaybook, MAX_BULLET_CHARS, normaliseSection, playbookResponse, type PlaybookRef,
} from '../../../domain/ace/playbooks.js';
import { findReflection, OUTCOMES, reflect } from '../../../domain/ace/reflect.js';
import { refine } from '../../../domain/ace/refine.js';
import { viewPlaybook } from '../../../domain/ace/view.js';
import { scopeOf } from '../../../domain/memory/memories.js';
import { defineTool } from '../../tool.js';
import { int, rows } from '../outputs.js';

const SCOPE_NOTE = "Playbooks are scoped to the caller and the key's project (an unbound key uses the user's own scope).";

const playbookArgs = {
  playbook: z.string().trim().min(1).max(100).optional().describe(`Playbook name (default '${DEFAULT_PLAYBOOK}')`),
  playbook_id: z.string().uuid().optional().describe('Playbook id (wins over the name; must exist)'),
};
const modelArgs = {
  provider: z.string().trim().min(1).max(100).optional().describe(`The project's LLM provider (gc_provider_set; default '${DEFAULT_PROVIDER}', the local server when none is registered)`),
  model: z.string().trim().min(1).max(200).optional().describe("Model (default: the provider's default_model)"),
  max_tokens: z.number().int().min(1).max(16_000).default(800).describe('Output tokens per model call'),
};
const task = z.string().trim().min(1).max(20_000);
const longText = z.string().trim().min(1).max(50_000);
const threshold = z.number().gt(0).max(1).default(DEFAULT_SIMILARITY).describe(`Embedding cosine at or over which two bullets are duplicates (default ${DEFAULT_SIMILARITY})`);
const budget = z.number().int().min(1).max(200_000);
const maxNew = z.number().int().min(0).max(50).default(8).describe('New bullets one curation may add');
const pruneMargin = z.number().int().min(1).max(1_000_000).default(3).describe('Prune a bullet when harmful_count - helpful_count reaches this');
const outcome = z.enum(OUTCOMES).default('unknown').describe('How the attempt went, when known: success tags the used bullets helpful, failure harmful (when the model gives no tags)');

/** Output shapes: one model call's figures, a playbook, a delta, and each step's result (ace_execute_cycle nests them). */
const figures = { provider: z.string(), model: z.string(), input_tokens: int.nullable(), output_tokens: int.nullable(), cost_micros: z.number().nullable() };
const playbookOut = z.looseObject({ playbook_id: z.string(), name: z.string(), version: int });
const deltaOut = { delta_id: z.string(), operations: rows, added: int, duplicates: int, updated: int, playbook_version: int };
const generateOut = z.looseObject({
  playbook: playbookOut,
  task: z.string(),
  answer: z.string(),
  bullets_used: z.array(z.looseObject({ bullet_id: z.string(), label: z.string(), section: z.string(), score: z.number().nullable() })),
  bullets_cited: z.array(z.string()),
  playbook_tokens: int,
  playbook_bullets: int,
  ...figures,
});
const reflectOut = z.looseObject({
  reflection_id: z.string(),
  playbook_id: z.string(),
  outcome: z.enum(OUTCOMES),
  bullets_used: z.array(z.string()),
  insights: rows,
  bullet_tags: rows,
  path: z.enum(['model', 'fallback']),
  ...figures,
});
const curateOut = z.looseObject({
  reflection_id: z.string(),
  playbook_id: z.string(),
  ...deltaOut,
  path: z.enum(['model', 'fallback']),
  already_applied: z.boolean(),
  model_call: z.looseObject(figures).nullable(),
  cost_micros: z.number().nullable(),
});
const refineOut = z.looseObject({
  playbook_id: z.string(),
  merged: rows,
  pruned: rows,
  bullets_before: int,
  bullets_after: int,
  dry_run: z.boolean(),
  delta_id: z.string().nullable(),
  playbook_version: int,
});

const refOf = (a: { playbook?: string; playbook_id?: string }): PlaybookRef => ({ playbookId: a.playbook_id, name: a.playbook });
const choiceOf = (a: { provider?: string; model?: string; max_tokens: number }) => ({ provider: a.provider, model: a.model, maxTokens: a.max_tokens });

export const aceTools = [
  defineTool({
    name: 'ace_generate',
    scope: 'mcp:write',
    advisory: true,
    description:
      `ACE generator: answers task with the playbook's most relevant bullets in the prompt (hybrid BM25 + embedding ranking, packed into budget_tokens measured on the rendered bullets), through the project's LLM provider. Returns the answer, bullets_used (given to the model), bullets_cited (labels the answer names, e.g. [b3]) and the call's cost_micros. Creates the named playbook when it does not exist. ${SCOPE_NOTE}`,
    output: generateOut,
    input: z.object({ ...playbookArgs, task, context: longText.optional(), budget_tokens: budget.default(2000), ...modelArgs }).strict(),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const playbook = await ensurePlaybook(ctx.services.db, s, refOf(args));
      return { result: { ...(await generate(ctx.call, s, playbook, { task: args.task, context: args.context, budgetTokens: args.budget_tokens, choice: choiceOf(args) })) } };
    },
  }),
  defineTool({
    name: 'ace_reflect',
    scope: 'mcp:write',
    advisory: true,
    description:
      "ACE reflector: from task, answer (the trajectory) and optional feedback, ground_truth and outcome, the model extracts insights and tags the used bullets (bullet_ids) helpful, harmful or neutral. Stored with a reflection_id for ace_curate. When the model's answer is not the JSON asked for, path is 'fallback': its sentences about the task, feedback or ground truth are the insights and outcome decides the tags.",
    output: reflectOut,
    input: z
      .object({
        ...playbookArgs,
        task,
        answer: longText,
        bullet_ids: z.array(z.string().uuid()).max(500).default([]).describe('Bullets the answer used (ace_generate bullets_used)'),
        feedback: longText.optional(),
        ground_truth: longText.optional(),
        outcome,
        ...modelArgs,
      })
      .strict(),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const playbook = await ensurePlaybook(ctx.services.db, s, refOf(args));
      const r = await reflect(ctx.call, s, playbook, {
        task: args.task, answer: args.answer, bulletIds: args.bullet_ids, feedback: args.feedback, groundTruth: args.ground_truth, outcome: args.outcome, choice: choiceOf(args),
      });
      return { result: { ...r } };
    },
  }),
  defineTool({
    name: 'ace_curate',
    scope: 'mcp:write',
    advisory: true,
    description:
      "ACE curator: turns a reflection into a delta applied incrementally: ADD new bullets (skipped as duplicate when an existing bullet's embedding cosine reaches similarity_threshold) and UPDATE the helpful/harmful counters the reflection tagged. The playbook is never rewritten. The model proposes the ADDs as JSON; without usable JSON the reflection's insights are used (path 'fallback'). Curating a reflection again returns its delta (already_applied).",
    output: curateOut,
    input: z.object({ reflection_id: z.string().uuid(), max_new_bullets: maxNew, similarity_threshold: threshold, ...modelArgs }).strict(),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const reflection = await findReflection(ctx.call, s, args.reflection_id);
      return { result: { ...(await curate(ctx.call, s, reflection, { choice: choiceOf(args), maxNewBullets: args.max_new_bullets, threshold: args.similarity_threshold })) } };
    },
  }),
  defineTool({
    name: 'ace_get_playbook',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description:
      `A playbook's bullets (label, section, content, helpful_count, harmful_count, version, timestamps) in label order, optionally one section, optionally packed into budget_tokens (most useful first: helpful minus harmful), with the prompt text and stats (counts by section, tokens, counter totals, reflections, deltas). Unknown playbook: not_found. ${SCOPE_NOTE}`,
    output: z.looseObject({
      playbook: playbookOut,
      section: z.string().nullable(),
      bullets: rows,
      returned: int,
      truncated: z.boolean(),
      text: z.string(),
      tokens: int.nullable(),
      budget_tokens: int.nullable(),
      stats: z.looseObject({ bullet_count: int, by_section: z.record(z.string(), int), total_tokens: int, helpful_total: int, harmful_total: int, reflections: int, deltas: int, last_delta_at: z.string().nullable() }),
    }),
    input: z.object({ ...playbookArgs, section: z.string().trim().min(1).max(40).optional(), budget_tokens: budget.optional() }).strict(),
    async handler(args, ctx) {
      const section = args.section === undefined ? undefined : normaliseSection(args.section);
      return { result: await viewPlaybook(ctx.call, scopeOf(ctx.principal), refOf(args), { section, budgetTokens: args.budget_tokens }) };
    },
  }),
  defineTool({
    name: 'ace_grow_context',
    scope: 'mcp:write',
    advisory: true,
    description:
      `Adds bullets directly as one delta (ADD): each is embedded in the pool and skipped as a duplicate when an existing bullet, or an earlier one of the same call, reaches similarity_threshold. Existing bullets are not touched. Creates the named playbook when it does not exist. ${SCOPE_NOTE}`,
    output: z.looseObject({ playbook: playbookOut, ...deltaOut }),
    input: z
      .object({
        ...playbookArgs,
        bullets: z
          .array(z.object({ content: z.string().trim().min(1).max(MAX_BULLET_CHARS), section: z.string().trim().min(1).max(40).optional().describe(`Default '${DEFAULT_SECTION}'`) }).strict())
          .min(1)
          .max(100),
        similarity_threshold: threshold,
      })
      .strict(),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const adds = args.bullets.map((b) => ({ section: normaliseSection(b.section), content: b.content.replace(/\s+/g, ' ') }));
      const playbook = await ensurePlaybook(ctx.services.db, s, refOf(args));
      const delta = await applyDelta(ctx.call, playbook, { adds, updates: [], threshold: args.similarity_threshold, source: 'grow' });
      return { result: { playbook: playbookResponse(playbook), ...delta } };
    },
  }),
  defineTool({
    name: 'ace_refine_context',
    scope: 'mcp:write',
    advisory: true,
    description:
      "ACE grow-and-refine: merges near-duplicate bullets (embedding cosine at or over similarity_threshold to the group's earliest bullet, computed in the pool) into that bullet with the counters summed, and prunes bullets whose harmful_count exceeds helpful_count by prune_margin or more. Returns what merged and what was pruned; dry_run reports without writing. Unknown playbook: not_found.",
    output: refineOut,
    input: z.object({ ...playbookArgs, similarity_threshold: threshold, prune_margin: pruneMargin, dry_run: z.boolean().default(false) }).strict(),
    async handler(args, ctx) {
      const playbook = await findPlaybook(ctx.services.db, scopeOf(ctx.principal), refOf(args));
      return { result: { ...(await refine(ctx.call, playbook, { threshold: args.similarity_threshold, pruneMargin: args.prune_margin, dryRun: args.dry_run })) } };
    },
  }),
  defineTool({
    name: 'ace_execute_cycle',
    scope: 'mcp:write',
    advisory: true,
    description:
      'One ACE cycle: ace_generate, ace_reflect on its answer (with feedback, ground_truth, outcome), ace_curate of the reflection, and with refine also ace_refine_context. Returns each step\'s output, the delta applied and the total cost_micros of the model calls.',
    output: z.looseObject({
      playbook_id: z.string(),
      // Each step as its own tool returns it; named here by the fields that tie the cycle together.
      generate: z.looseObject({ answer: z.string(), bullets_used: rows, cost_micros: z.number().nullable() }),
      reflect: z.looseObject({ reflection_id: z.string(), insights: rows, bullet_tags: rows, cost_micros: z.number().nullable() }),
      curate: z.looseObject({ delta_id: z.string(), path: z.enum(['model', 'fallback']), already_applied: z.boolean(), cost_micros: z.number().nullable() }),
      refine: z.looseObject({ merged: rows, pruned: rows, delta_id: z.string().nullable() }).nullable(),
      delta: z.looseObject({ delta_id: z.string(), operations: rows, added: int, duplicates: int, updated: int }),
      playbook_version: int,
      cost_micros: z.number().nullable(),
    }),
    input: z
      .object({
        ...playbookArgs,
        task,
        context: longText.optional(),
        feedback: longText.optional(),
        ground_truth: longText.optional(),
        outcome,
        budget_tokens: budget.default(2000),
        max_new_bullets: maxNew,
        similarity_threshold: threshold,
        refine: z.boolean().default(false),
        prune_margin: pruneMargin,
        ...modelArgs,
      })
      .strict(),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const playbook = await ensurePlaybook(ctx.services.db, s, refOf(args));
      const r = await executeCycle(ctx.call, s, playbook, {
        task: args.task,
        context: args.context,
        feedback: args.feedback,
        groundTruth: args.ground_truth,
        outcome: args.outcome,
        budgetTokens: args.budget_tokens,
        maxNewBullets: args.max_new_bullets,
        threshold: args.similarity_threshold,
        refine: args.refine ? { pruneMargin: args.prune_margin } : null,
        choice: choiceOf(args),
      });
      return { result: r };
    },
  }),
];
