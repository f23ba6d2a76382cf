// One ACE step end to end: generate with the playbook, reflect on the answer and the feedback, curate
// the reflection into a delta, and (when asked) refine. Each step's output and the delta come back.
import type { Call } from '../call.js';
import type { Scope } from '../memory/memories.js';
import { curate } from './curate.js';
import { generate } from './generate.js';
import { totalCost, type ModelChoice } from './llm.js';
import { findPlaybook, type PlaybookRow } from './playbooks.js';
import { reflect, type Outcome } from './reflect.js';
import { refine } from './refine.js';

export interface CycleInput {
  task: string;
  context?: string;
  feedback?: string;
  groundTruth?: string;
  outcome: Outcome;
  budgetTokens: number;
  maxNewBullets: number;
  threshold: number;
  refine: { pruneMargin: number } | null;
  choice: ModelChoice;
}

export async function executeCycle(call: Call, s: Scope, playbook: PlaybookRow, input: CycleInput) {
  const generated = await generate(call, s, playbook, { task: input.task, context: input.context, budgetTokens: input.budgetTokens, choice: input.choice });
  const reflection = await reflect(call, s, playbook, {
    task: input.task,
    answer: generated.answer,
    bulletIds: generated.bullets_used.map((b) => b.bullet_id),
    feedback: input.feedback,
    groundTruth: input.groundTruth,
    outcome: input.outcome,
    choice: input.choice,
  });
  const curated = await curate(call, s, reflection, { choice: input.choice, maxNewBullets: input.maxNewBullets, threshold: input.threshold });
  const refined = input.refine
    ? await refine(call, await findPlaybook(call.services.db, s, { playbookId: playbook.id }), { threshold: input.threshold, pruneMargin: input.refine.pruneMargin, dryRun: false })
    : null;
  return {
    playbook_id: playbook.id,
    generate: generated,
    reflect: reflection,
    curate: curated,
    refine: refined,
    delta: { delta_id: curated.delta_id, operations: curated.operations, added: curated.added, duplicates: curated.duplicates, updated: curated.updated },
    playbook_version: refined?.playbook_version ?? curated.playbook_version,
    cost_micros: totalCost([generated.cost_micros, reflection.cost_micros, curated.cost_micros]),
  };
}
