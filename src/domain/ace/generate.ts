// ACE generator: answers a task with the playbook's most relevant bullets in the prompt, and says which
// bullets it was given and which its answer cites by label.
import type { Call } from '../call.js';
import type { Scope } from '../memory/memories.js';
import { aceComplete, figuresOf, type CallFigures, type ModelChoice } from './llm.js';
import { label, playbookResponse, type PlaybookRow } from './playbooks.js';
import { selectBullets } from './retrieve.js';

export const GENERATOR_SYSTEM = [
  'You solve the task using the playbook below: itemised strategies, pitfalls and tool notes learnt from earlier attempts.',
  'Cite each playbook bullet you rely on by its label in square brackets, e.g. [b3]. Ignore bullets that do not apply.',
  'Give your reasoning briefly, then the final answer.',
].join('\n');

export interface GenerateInput {
  task: string;
  context?: string;
  budgetTokens: number;
  choice: ModelChoice;
}

export interface GenerateResult extends CallFigures {
  playbook: ReturnType<typeof playbookResponse>;
  task: string;
  answer: string;
  bullets_used: { bullet_id: string; label: string; section: string; score: number | null }[];
  bullets_cited: string[];
  playbook_tokens: number;
  playbook_bullets: number;
}

export async function generate(call: Call, s: Scope, playbook: PlaybookRow, input: GenerateInput): Promise<GenerateResult> {
  const sel = await selectBullets(call, playbook, input.task, input.budgetTokens);
  const system = `${GENERATOR_SYSTEM}\n\nPLAYBOOK\n${sel.text || '(empty: no bullets yet)'}`;
  const user = input.context ? `${input.task}\n\nContext:\n${input.context}` : input.task;
  const c = await aceComplete(call, s, input.choice, [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ]);
  const byLabel = new Map(sel.bullets.map((b) => [label(b), b.id]));
  const cited = [...new Set([...c.text.matchAll(/\[(b\d+)\]/g)].map((m) => byLabel.get(m[1]!)).filter((id): id is string => !!id))];
  return {
    playbook: playbookResponse(playbook),
    task: input.task,
    answer: c.text,
    bullets_used: sel.bullets.map((b) => ({ bullet_id: b.id, label: label(b), section: b.section, score: b.score })),
    bullets_cited: cited,
    playbook_tokens: sel.tokens,
    playbook_bullets: sel.total,
    ...figuresOf(c),
  };
}
