import { z } from 'zod';
import { FIDELITIES } from '../../../../workers/shared/fidelity.js';
import { blame, decide, getProposal, listProposals, MAX_PLAN_CHARS, propose, proposalResponse, proposeDistilled, PROPOSAL_STATES } from '../../../domain/plans/plans.js';
import { defineTool } from '../../tool.js';
import { boundProject } from './workflows.js';
import { int } from '../outputs.js';

/** proposalResponse as a result: stale and current_version_id with the plan's state, diff unless listed. */
const proposal = z.looseObject({
  proposal_id: z.string(),
  item_id: z.string(),
  base_version_id: z.string(),
  title: z.string(),
  rationale: z.string().nullable(),
  source: z.enum(['manual', 'distilled']),
  status: z.enum(PROPOSAL_STATES),
  decided_at: z.string().nullable(),
  merged_version_id: z.string().nullable(),
  created_at: z.string(),
  stale: z.boolean().optional(),
  current_version_id: z.string().nullable().optional(),
  diff: z.string().optional(),
});
const proposed = proposal.extend({ added_lines: int, removed_lines: int });

const itemId = z.string().max(100).describe('item_id of a Knowledge Hub item of type plan');
const versionId = z.string().uuid().describe('The plan version the proposal is written against (its current_version_id when you read it)');
const proposalId = z.string().max(100).describe('proposal_id returned by gc_plan_propose or gc_plan_list_proposals');

export const planTools = [
  defineTool({
    name: 'gc_plan_propose',
    output: proposed,
    scope: 'mcp:write',
    needsProject: true,
    description:
      'Proposes a change to a plan (a Knowledge Hub item of type plan) as a unified diff against a pinned base version: give diff, or the full proposed content (the diff is computed). The diff must apply to the base exactly.',
    input: z
      .object({
        item_id: itemId,
        base_version_id: versionId,
        title: z.string().trim().min(1).max(200),
        rationale: z.string().max(10_000).optional(),
        diff: z.string().min(1).max(MAX_PLAN_CHARS).optional(),
        content: z.string().max(MAX_PLAN_CHARS).optional(),
      })
      .strict()
      .refine((a) => (a.diff === undefined) !== (a.content === undefined), { message: 'Give exactly one of diff or content', path: ['diff'] }),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const out = await propose(ctx.call, project, { itemId: args.item_id, baseVersionId: args.base_version_id, title: args.title, rationale: args.rationale, diff: args.diff, content: args.content });
      return { result: { ...proposalResponse(out.proposal, out.item.current_version_id), added_lines: out.added_lines, removed_lines: out.removed_lines } };
    },
  }),
  defineTool({
    name: 'gc_plan_propose_distilled',
    output: proposed.extend({ distillation: z.looseObject({ discussion_tokens: int, distilled_tokens: int, savings_percent: z.number() }) }),
    scope: 'mcp:write',
    needsProject: true,
    description:
      'Distils a long discussion into a proposal on a plan: the compression engine keeps the sentences most relevant to the plan (query-guided, default fidelity outline) and the proposal appends them as a new section, as a diff against base_version_id.',
    input: z
      .object({
        item_id: itemId,
        base_version_id: versionId,
        discussion: z.string().trim().min(1).max(MAX_PLAN_CHARS),
        title: z.string().trim().min(1).max(200).optional(),
        fidelity: z.enum(FIDELITIES).default('outline'),
      })
      .strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const out = await proposeDistilled(ctx.call, project, { itemId: args.item_id, baseVersionId: args.base_version_id, discussion: args.discussion, title: args.title, fidelity: args.fidelity });
      return {
        result: { ...proposalResponse(out.proposal, out.item.current_version_id), added_lines: out.added_lines, removed_lines: out.removed_lines, distillation: out.distillation },
      };
    },
  }),
  defineTool({
    name: 'gc_plan_list_proposals',
    output: z.looseObject({ proposals: z.array(proposal), total: int }),
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description: "The project's plan proposals, newest first, optionally of one plan or in one state (open, merged, rejected); stale says an open proposal's base is no longer current.",
    input: z.object({ item_id: itemId.optional(), status: z.enum(PROPOSAL_STATES).optional(), limit: z.number().int().min(1).max(200).default(50) }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const rows = await listProposals(ctx.services.db, ctx.principal, project, { itemId: args.item_id, status: args.status, limit: args.limit });
      return { result: { proposals: rows.map((r) => proposalResponse(r, r.current_version_id, false)), total: rows.length } };
    },
  }),
  defineTool({
    name: 'gc_plan_get_proposal',
    output: proposal,
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description: 'One proposal with its diff, base version, state and decision.',
    input: z.object({ proposal_id: proposalId }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const { proposal, item } = await getProposal(ctx.services.db, ctx.principal, project, args.proposal_id);
      return { result: proposalResponse(proposal, item.current_version_id) };
    },
  }),
  defineTool({
    name: 'gc_plan_decide',
    output: proposal.extend({ decision: z.enum(['merge', 'reject']), new_version_id: z.string().optional(), version_number: int.optional() }),
    scope: 'mcp:write',
    needsProject: true,
    description:
      "The plan owner's decision on an open proposal. merge applies the diff against the pinned base in a locked transaction and creates a new version; if the base is no longer current: stale_base with current_version_id. reject writes no version.",
    input: z.object({ proposal_id: proposalId, decision: z.enum(['merge', 'reject']), comment: z.string().max(2000).optional() }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const out = await decide(ctx.call, project, args.proposal_id, args.decision, args.comment ?? null);
      return {
        result: {
          ...proposalResponse(out.proposal, out.item.current_version_id, false),
          decision: args.decision,
          ...(out.kind === 'merged' ? { new_version_id: out.version.id, version_number: out.version.number } : {}),
        },
      };
    },
  }),
  defineTool({
    name: 'gc_plan_blame',
    output: z.looseObject({
      item_id: z.string(),
      current_version_id: z.string().nullable(),
      version_count: int,
      lines: z.array(z.looseObject({ line: int, text: z.string(), version_id: z.string(), proposal_id: z.string().nullable() })),
    }),
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description: 'Each line of the current plan with the version, proposal and author (key and user) that introduced it.',
    input: z.object({ item_id: itemId }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      return { result: await blame(ctx.call, project, args.item_id) };
    },
  }),
];
