import { z } from 'zod';
import { TASK_STATUSES } from './tasks.js';

/**
 * taskResponse (tasks.ts) as a schema: the success body of the public claim/complete routes and the
 * outputSchema of the gc_a2a_task_* tools, one declaration for both. `warning` is set on an expired task
 * not yet acknowledged.
 */
export const taskSchema = z.looseObject({
  task_id: z.string(),
  status: z.enum(TASK_STATUSES),
  project_id: z.string(),
  requester_peer_id: z.string().nullable(),
  assignee_peer_id: z.string(),
  title: z.string(),
  input: z.record(z.string(), z.unknown()),
  contract_jws: z.string(),
  deadline: z.string(),
  result_payload: z.unknown(),
  result_hash: z.string().nullable(),
  result_proof_jws: z.string().nullable(),
  reassigned_from: z.string().nullable(),
  reassigned_to: z.string().nullable(),
  warning: z.looseObject({ task_id: z.string(), code: z.literal('a2a_task_expired'), message: z.string() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
