// A2A task delegation (spec "States and transitions > A2A task"): the nine gc_a2a_task_* tools.
// They need a project-bound key (no_project_selected otherwise); tasks belong to the key's project.
import { z } from 'zod';
import { DomainError } from '../../../domain/errors.js';
import {
  ackTask, approveTask, cancelTask, claimTask, completeTask, createTask, MAX_DEADLINE_SECONDS, reassignTask, TASK_STATUSES, taskInbox, taskResponse, taskStatus,
} from '../../../domain/federation/tasks.js';
import { resolveProject } from '../../../domain/knowledge/items.js';
import { defineToolGroup, type ToolContext } from '../../tool.js';
import { iso } from '../../../lib/time.js';
import { taskSchema } from '../../../domain/federation/taskSchema.js';

async function boundProject(ctx: ToolContext): Promise<string> {
  const project = await resolveProject(ctx.services.db, ctx.principal, ctx.principal.projectId!).catch(() => null);
  if (!project) throw new DomainError('forbidden', 'The project this key is bound to no longer exists', { code: 'no_project_selected' });
  return project.id;
}

const taskId = z.string().min(1).max(100).describe('The A2A task id (UUID)');
const peerId = z.string().min(1).max(100);
const proof = {
  task_id: taskId,
  from_peer_id: peerId.describe('The assignee peer id (as registered in GET /v1/agents/a2a-peers)'),
  proof_jws: z.string().min(1).max(16_384).describe('Compact JWS (EdDSA, kid of the peer key) whose payload names task_id and action'),
};

const task = taskSchema;
const warning = z.looseObject({ task_id: z.string(), code: z.string(), message: z.string() });

/** Federation tools act on peers' tasks: project-bound, and open-world (a peer is another service). */
const federated = defineToolGroup({ needsProject: true, hints: { openWorldHint: true } });

export const federationTools = [
  federated({
    name: 'gc_a2a_task_create',
    output: task,
    scope: 'mcp:write',
    description:
      'Creates an A2A task contract (draft) delegated to one of your registered peers (assignee_peer_id); returns the contract signed with the service key (Ed25519 JWS). Not visible in the assignee inbox until gc_a2a_task_approve. Deadline: now + deadline_seconds (default 86400); a pending or claimed task past it expires.',
    input: z
      .object({
        assignee_peer_id: peerId.describe('A registered peer (GET /v1/agents/a2a-peers)'),
        title: z.string().trim().min(1).max(500),
        input: z.record(z.string(), z.unknown()).optional().describe('The task input handed to the assignee (JSON object)'),
        requester_peer_id: peerId.optional().describe('Overrides the auto-resolved requester (this service) with one of your peers'),
        deadline_seconds: z.number().int().min(1).max(MAX_DEADLINE_SECONDS).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: taskResponse(await createTask(ctx.services, ctx.principal, await boundProject(ctx), args)) };
    },
  }),
  federated({
    name: 'gc_a2a_task_approve',
    output: task,
    scope: 'mcp:write',
    description: 'Approves a draft task you created: it becomes pending and visible in the assignee inbox (event a2a.task.status).',
    input: z.object({ task_id: taskId }).strict(),
    async handler(args, ctx) {
      return { result: taskResponse(await approveTask(ctx.services, ctx.principal, await boundProject(ctx), args.task_id)) };
    },
  }),
  federated({
    name: 'gc_a2a_task_cancel',
    output: task,
    scope: 'mcp:write',
    description: 'Cancels a draft or pending task you created (never a claimed or completed one); event a2a.task.status.',
    input: z.object({ task_id: taskId }).strict(),
    async handler(args, ctx) {
      return { result: taskResponse(await cancelTask(ctx.services, ctx.principal, await boundProject(ctx), args.task_id)) };
    },
  }),
  federated({
    name: 'gc_a2a_task_claim',
    output: task,
    scope: 'mcp:write',
    description:
      'Claims a pending task with the assignee peer\'s Ed25519 proof (payload {task_id, action: "claim"}); same as POST /a2a/v1/tasks/claim. An invalid proof is refused generically.',
    input: z.object(proof).strict(),
    async handler(args, ctx) {
      const projectId = await boundProject(ctx);
      return { result: taskResponse(await claimTask(ctx.services, { principal: ctx.principal, projectId }, args)) };
    },
  }),
  federated({
    name: 'gc_a2a_task_complete',
    output: task,
    scope: 'mcp:write',
    description:
      'Completes a claimed task: result_payload plus the assignee\'s proof (payload {task_id, action: "complete", result_hash}) where result_hash is the SHA-256 (hex) of the RFC 8785 canonical JSON of result_payload. A mismatch is refused generically.',
    input: z.object({ ...proof, result_payload: z.unknown().describe('The result (any JSON value)'), result_hash: z.string().max(128).optional() }).strict(),
    async handler(args, ctx) {
      const projectId = await boundProject(ctx);
      return { result: taskResponse(await completeTask(ctx.services, { principal: ctx.principal, projectId }, { ...args, result_payload: args.result_payload })) };
    },
  }),
  federated({
    name: 'gc_a2a_task_reassign',
    output: task.extend({ original: task }),
    scope: 'mcp:write',
    description: 'Reassigns a pending, claimed or expired task to a different registered peer: the original becomes reassigned, a new pending task is created (both linked).',
    input: z.object({ task_id: taskId, new_assignee_peer_id: peerId }).strict(),
    async handler(args, ctx) {
      const { original, task } = await reassignTask(ctx.services, ctx.principal, await boundProject(ctx), args.task_id, args.new_assignee_peer_id);
      return { result: { ...taskResponse(task), original: taskResponse(original) } };
    },
  }),
  federated({
    name: 'gc_a2a_task_ack',
    output: task,
    scope: 'mcp:write',
    description: 'Acknowledges an expired task: its warning leaves the warnings channel (gc_a2a_task_inbox warnings). Idempotent; the task stays expired.',
    input: z.object({ task_id: taskId }).strict(),
    async handler(args, ctx) {
      return { result: taskResponse(await ackTask(ctx.services, ctx.principal, await boundProject(ctx), args.task_id)) };
    },
  }),
  federated({
    name: 'gc_a2a_task_inbox',
    output: z.looseObject({ tasks: z.array(task), warnings: z.array(warning) }),
    scope: 'mcp:read',
    readOnly: true,
    description: 'Tasks of the project visible to assignees, by status (default pending; drafts never appear), optionally for one peer; plus the warnings channel (expired tasks not yet acknowledged).',
    input: z
      .object({ status: z.enum(TASK_STATUSES.filter((s) => s !== 'draft') as [string, ...string[]]).optional(), peer_id: peerId.optional() })
      .strict(),
    async handler(args, ctx) {
      const { tasks, warnings } = await taskInbox(ctx.services, ctx.principal, await boundProject(ctx), (args.status ?? 'pending') as 'pending', args.peer_id);
      return { result: { tasks: tasks.map(taskResponse), warnings } };
    },
  }),
  federated({
    name: 'gc_a2a_task_status',
    output: task.extend({ history: z.array(z.looseObject({ event_id: z.string(), from_status: z.string().nullable(), status: z.string(), at: z.string() })) }),
    scope: 'mcp:read',
    readOnly: true,
    description: 'The full signed state of a task: contract JWS, status, result and its proof, links of a reassignment, and its transition history.',
    input: z.object({ task_id: taskId }).strict(),
    async handler(args, ctx) {
      const { task, history } = await taskStatus(ctx.services, ctx.principal, await boundProject(ctx), args.task_id);
      return {
        result: {
          ...taskResponse(task),
          history: history.map((h) => ({ event_id: h.id, from_status: h.from_status, status: h.to_status, at: iso(h.created_at) })),
        },
      };
    },
  }),
];
