// ace_get_playbook: the bullets (optionally one section, optionally packed into a token budget by
// usefulness, helpful minus harmful) with the playbook's statistics.
import type { Call } from '../call.js';
import type { Scope } from '../memory/memories.js';
import { bulletResponse, findPlaybook, listBullets, playbookResponse, renderBullets, type PlaybookRef } from './playbooks.js';
import { pack } from './retrieve.js';
import { isoOrNull } from '../../lib/time.js';

export interface ViewInput {
  section?: string;
  budgetTokens?: number;
}

export async function viewPlaybook(call: Call, s: Scope, ref: PlaybookRef, input: ViewInput) {
  const { db } = call.services;
  const playbook = await findPlaybook(db, s, ref);
  const all = await listBullets(db, playbook.id);
  const inSection = input.section ? all.filter((b) => b.section === input.section) : all;
  const [counts] = await db.query<{ reflections: number; deltas: number; last_delta_at: Date | string | null }>(
    `select (select count(*)::int from ace_reflections where playbook_id = $1) as reflections,
            (select count(*)::int from ace_deltas where playbook_id = $1) as deltas,
            (select max(created_at) from ace_deltas where playbook_id = $1) as last_delta_at`,
    [playbook.id],
  );
  const bySection: Record<string, number> = {};
  for (const b of all) bySection[b.section] = (bySection[b.section] ?? 0) + 1;
  const stats = {
    bullet_count: all.length,
    by_section: bySection,
    total_tokens: all.reduce((n, b) => n + b.tokens, 0),
    helpful_total: all.reduce((n, b) => n + b.helpful_count, 0),
    harmful_total: all.reduce((n, b) => n + b.harmful_count, 0),
    reflections: counts!.reflections,
    deltas: counts!.deltas,
    last_delta_at: isoOrNull(counts!.last_delta_at),
  };
  let bullets = inSection;
  let text: string;
  let tokens: number | null = null;
  if (input.budgetTokens !== undefined) {
    const ranked = [...inSection].sort((a, b) => b.helpful_count - b.harmful_count - (a.helpful_count - a.harmful_count) || a.seq - b.seq).map((b) => ({ ...b, score: null }));
    const sel = await pack(call, ranked, input.budgetTokens, all.length);
    bullets = [...sel.bullets].sort((a, b) => a.seq - b.seq);
    text = sel.text;
    tokens = sel.tokens;
  } else text = renderBullets(bullets);
  return {
    playbook: playbookResponse(playbook),
    section: input.section ?? null,
    bullets: bullets.map(bulletResponse),
    returned: bullets.length,
    truncated: bullets.length < inSection.length,
    text,
    tokens,
    budget_tokens: input.budgetTokens ?? null,
    stats,
  };
}
