// ACE curator: turns a stored reflection into a delta (ADD new bullets, UPDATE counters) applied
// incrementally. The model proposes the ADDs as JSON; when its answer has no usable JSON, the
// reflection's insights are the candidates (path 'fallback'). Counters always come from the
// reflector's tags. A reflection is curated once: curating it again returns the same delta.
import { z } from 'zod';
import type { Call } from '../call.js';
import type { Scope } from '../memory/memories.js';
import { applyDelta, updatesFromTags, type AppliedOp, type DeltaResult } from './delta.js';
import { aceComplete, extractJson, figuresOf, sectionFor, type CallFigures, type ModelChoice } from './llm.js';
import { findPlaybook, MAX_BULLET_CHARS, normaliseSection, type PlaybookRow } from './playbooks.js';
import { MAX_INSIGHTS, referenceOf, type Insight, type Reflection } from './reflect.js';
import { selectBullets } from './retrieve.js';

export const CURATOR_SYSTEM = [
  'You are the curator of a playbook of itemised bullets. From the reflection, propose only NEW bullets that the playbook does not already hold:',
  'short, specific, reusable. Never restate or rewrite existing bullets.',
  'Answer with JSON only: {"operations":[{"type":"ADD","section":"strategies|pitfalls|tools/apis","content":"..."}]}. An empty list is fine.',
].join('\n');

/** Budget of the existing bullets shown to the curator (so it can avoid repeats). */
const CURATOR_CONTEXT_TOKENS = 1500;

export interface CurateInput {
  choice: ModelChoice;
  maxNewBullets: number;
  threshold: number;
}

export interface CurateResult extends DeltaResult {
  reflection_id: string;
  playbook_id: string;
  path: 'model' | 'fallback';
  already_applied: boolean;
  model_call: CallFigures | null;
  cost_micros: number | null;
}

const modelOps = z.union([
  z.object({ operations: z.array(z.object({ type: z.string().optional(), section: z.string().optional(), content: z.string() }).passthrough()) }).passthrough(),
  z.array(z.object({ type: z.string().optional(), section: z.string().optional(), content: z.string() }).passthrough()),
]);

/** ADD candidates from the model's JSON, or null when it gave none in the format. */
export function parseOps(text: string): Insight[] | null {
  const parsed = modelOps.safeParse(extractJson(text));
  if (!parsed.success) return null;
  const ops = Array.isArray(parsed.data) ? parsed.data : parsed.data.operations;
  const out: Insight[] = [];
  for (const op of ops) {
    if (op.type && op.type.toUpperCase() !== 'ADD') continue;
    const content = op.content.replace(/\s+/g, ' ').trim().slice(0, MAX_BULLET_CHARS);
    if (!content) continue;
    let section: string;
    try {
      section = normaliseSection(op.section ?? sectionFor(content));
    } catch {
      section = sectionFor(content);
    }
    out.push({ section, content });
  }
  return out;
}

interface DeltaRow {
  id: string;
  path: 'model' | 'fallback' | null;
  operations: unknown;
  playbook_version: string | number;
}

function summarise(row: DeltaRow): DeltaResult {
  const operations = (typeof row.operations === 'string' ? JSON.parse(row.operations) : row.operations) as AppliedOp[];
  return {
    delta_id: row.id,
    operations,
    added: operations.filter((o) => o.op === 'ADD' && o.status === 'added').length,
    duplicates: operations.filter((o) => o.op === 'ADD' && o.status === 'duplicate').length,
    updated: operations.filter((o) => o.op === 'UPDATE' && o.status === 'updated').length,
    playbook_version: Number(row.playbook_version),
  };
}

async function existingDelta(call: Call, reflectionId: string): Promise<DeltaRow | null> {
  const [row] = await call.services.db.query<DeltaRow>(
    "select id, path, operations, playbook_version from ace_deltas where reflection_id = $1 and source = 'curate'",
    [reflectionId],
  );
  return row ?? null;
}

export async function curate(call: Call, s: Scope, reflection: Reflection, input: CurateInput): Promise<CurateResult> {
  const base = { reflection_id: reflection.reflection_id, playbook_id: reflection.playbook_id };
  const done = await existingDelta(call, reflection.reflection_id);
  if (done) return { ...base, ...summarise(done), path: done.path ?? 'fallback', already_applied: true, model_call: null, cost_micros: null };
  const playbook: PlaybookRow = await findPlaybook(call.services.db, s, { playbookId: reflection.playbook_id });
  const insightText = reflection.insights.map((i) => `- (${i.section}) ${i.content}`).join('\n');
  const shown = await selectBullets(call, playbook, `${reflection.task}\n${insightText}`, CURATOR_CONTEXT_TOKENS);
  const user = [
    `Reflection on the task "${reflection.task}" (outcome ${reflection.outcome}):`,
    insightText || reflection.reflection,
    `Existing playbook bullets (most related):\n${shown.text || '(none)'}`,
  ].join('\n\n');
  const c = await aceComplete(call, s, input.choice, [
    { role: 'system', content: CURATOR_SYSTEM },
    { role: 'user', content: user },
  ]);
  const proposed = parseOps(c.text);
  // Fallback: the reflection's insights, or the sentences of its text when it recorded none.
  const fallback = reflection.insights.length
    ? reflection.insights
    : (await call.compute('aceCandidates', { text: reflection.reflection, reference: referenceOf(reflection), max: MAX_INSIGHTS })).insights;
  const adds = (proposed ?? fallback).slice(0, input.maxNewBullets);
  const path = proposed ? 'model' : 'fallback';
  let delta: DeltaResult;
  try {
    delta = await applyDelta(call, playbook, { adds, updates: updatesFromTags(reflection.bullet_tags), threshold: input.threshold, source: 'curate', reflectionId: reflection.reflection_id, path });
  } catch (err) {
    // The same reflection curated by two calls at once: the unique index let one delta in.
    const raced = await existingDelta(call, reflection.reflection_id);
    if (!raced) throw err;
    return { ...base, ...summarise(raced), path: raced.path ?? path, already_applied: true, model_call: figuresOf(c), cost_micros: c.costMicros };
  }
  return { ...base, ...delta, path, already_applied: false, model_call: figuresOf(c), cost_micros: c.costMicros };
}
