// ACE reflector: reads a task, the answer (trajectory) and any feedback or ground truth, and extracts
// insights and helpful/harmful tags of the bullets the answer used. The reflection is stored; the
// curator turns it into a delta. A model answer without the JSON format still gives a reflection:
// its grounded sentences are the insights and the outcome tags the used bullets (path 'fallback').
import { z } from 'zod';
import type { Call } from '../call.js';
import { notFound } from '../errors.js';
import { type Scope } from '../memory/memories.js';
import { aceComplete, extractJson, figuresOf, sectionFor, type CallFigures, type ModelChoice } from './llm.js';
import { bulletsByIds, label, normaliseSection, type BulletRow, type PlaybookRow } from './playbooks.js';
import { isoOrNull } from '../../lib/time.js';

export const OUTCOMES = ['success', 'failure', 'unknown'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const BULLET_TAGS = ['helpful', 'harmful', 'neutral'] as const;
/** Insights kept from one reflection. */
export const MAX_INSIGHTS = 12;

export const REFLECTOR_SYSTEM = [
  'You are the reflector of an agent that learns from its attempts.',
  'Read the feedback, the task and the answer. Say what went right or wrong and why, as short, reusable, self-contained insights.',
  'Tag each playbook bullet the answer used as helpful, harmful or neutral.',
  'Answer with JSON only: {"insights":[{"section":"strategies|pitfalls|tools/apis","content":"..."}],"bullet_tags":[{"label":"b3","tag":"helpful|harmful|neutral"}]}',
].join('\n');

export interface ReflectInput {
  task: string;
  answer: string;
  bulletIds: string[];
  feedback?: string;
  groundTruth?: string;
  outcome: Outcome;
  choice: ModelChoice;
}

export interface Insight {
  section: string;
  content: string;
}

export interface BulletTag {
  bullet_id: string;
  label: string;
  tag: (typeof BULLET_TAGS)[number];
}

interface ReflectionRow {
  id: string;
  playbook_id: string;
  task: string;
  answer: string;
  feedback: string | null;
  ground_truth: string | null;
  outcome: Outcome;
  bullets_used: unknown;
  insights: unknown;
  bullet_tags: unknown;
  raw: string;
  path: 'model' | 'fallback';
  model: string | null;
  cost_micros: string | number | null;
  created_at: Date | string;
}

const REFLECTION_COLUMNS = 'id, playbook_id, task, answer, feedback, ground_truth, outcome, bullets_used, insights, bullet_tags, raw, path, model, cost_micros, created_at';

const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

const modelReflection = z.object({
  insights: z.array(z.union([z.string(), z.object({ section: z.string().optional(), content: z.string() }).passthrough()])).default([]),
  bullet_tags: z.array(z.object({ label: z.string().optional(), id: z.string().optional(), bullet_id: z.string().optional(), tag: z.string() }).passthrough()).default([]),
});

function insightOf(v: string | { section?: string; content: string }): Insight | null {
  const content = (typeof v === 'string' ? v : v.content).replace(/\s+/g, ' ').trim().slice(0, 2000);
  if (!content) return null;
  let section: string;
  try {
    section = normaliseSection(typeof v === 'string' ? sectionFor(content) : v.section ?? sectionFor(content));
  } catch {
    section = sectionFor(content);
  }
  return { section, content };
}

/** The model's JSON reflection, or null when it did not give one. */
export function parseReflection(text: string, used: BulletRow[]): { insights: Insight[]; tags: BulletTag[] } | null {
  const parsed = modelReflection.safeParse(extractJson(text));
  if (!parsed.success) return null;
  const byKey = new Map<string, BulletRow>();
  for (const b of used) byKey.set(label(b), b).set(b.id, b);
  const tags = new Map<string, BulletTag>();
  for (const t of parsed.data.bullet_tags) {
    const b = byKey.get(t.label ?? t.bullet_id ?? t.id ?? '');
    const tag = t.tag.toLowerCase();
    if (b && (BULLET_TAGS as readonly string[]).includes(tag)) tags.set(b.id, { bullet_id: b.id, label: label(b), tag: tag as BulletTag['tag'] });
  }
  for (const b of used) if (!tags.has(b.id)) tags.set(b.id, { bullet_id: b.id, label: label(b), tag: 'neutral' });
  const insights = parsed.data.insights.map(insightOf).filter((i): i is Insight => !!i).slice(0, MAX_INSIGHTS);
  return { insights, tags: [...tags.values()] };
}

/** Without the model's tags, the outcome decides: success makes every used bullet helpful, failure harmful. */
function tagsFromOutcome(used: BulletRow[], outcome: Outcome): BulletTag[] {
  const tag = outcome === 'success' ? 'helpful' : outcome === 'failure' ? 'harmful' : 'neutral';
  return used.map((b) => ({ bullet_id: b.id, label: label(b), tag }));
}

export function reflectionResponse(r: ReflectionRow) {
  return {
    reflection_id: r.id,
    playbook_id: r.playbook_id,
    task: r.task,
    outcome: r.outcome,
    feedback: r.feedback,
    ground_truth: r.ground_truth,
    bullets_used: json<string[]>(r.bullets_used),
    insights: json<Insight[]>(r.insights),
    bullet_tags: json<BulletTag[]>(r.bullet_tags),
    path: r.path,
    reflection: r.raw,
    created_at: isoOrNull(r.created_at),
  };
}

export type Reflection = ReturnType<typeof reflectionResponse>;

/** What a free-text insight must be about: the task and what the attempt was judged by. */
export function referenceOf(r: { task: string; feedback?: string | null; groundTruth?: string | null; ground_truth?: string | null }): string {
  return [r.task, r.feedback, r.groundTruth ?? r.ground_truth].filter(Boolean).join('\n');
}

export async function reflect(call: Call, s: Scope, playbook: PlaybookRow, input: ReflectInput): Promise<Reflection & CallFigures> {
  const { db } = call.services;
  const used = await bulletsByIds(db, playbook.id, input.bulletIds);
  // Feedback first: what the attempt is judged by leads the message.
  const user = [
    input.feedback ? `Feedback: ${input.feedback}` : null,
    input.groundTruth ? `Ground truth: ${input.groundTruth}` : null,
    `Outcome: ${input.outcome}.`,
    `Task: ${input.task}`,
    `Answer: ${input.answer}`,
    used.length ? `Playbook bullets used:\n${used.map((b) => `[${label(b)}] (${b.section}) ${b.content}`).join('\n')}` : 'Playbook bullets used: none',
  ]
    .filter(Boolean)
    .join('\n');
  const c = await aceComplete(call, s, input.choice, [
    { role: 'system', content: REFLECTOR_SYSTEM },
    { role: 'user', content: user },
  ]);
  const parsed = parseReflection(c.text, used);
  const insights = parsed?.insights ?? (await call.compute('aceCandidates', { text: c.text, reference: referenceOf(input), max: MAX_INSIGHTS })).insights;
  const tags = parsed?.tags ?? tagsFromOutcome(used, input.outcome);
  const [row] = await db.query<ReflectionRow>(
    `insert into ace_reflections (playbook_id, task, answer, feedback, ground_truth, outcome, bullets_used, insights, bullet_tags, raw, path, model, cost_micros)
     values ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8::text::jsonb, $9::text::jsonb, $10, $11, $12, $13) returning ${REFLECTION_COLUMNS}`,
    [
      playbook.id, input.task, input.answer, input.feedback ?? null, input.groundTruth ?? null, input.outcome,
      JSON.stringify(used.map((b) => b.id)), JSON.stringify(insights), JSON.stringify(tags), c.text, parsed ? 'model' : 'fallback', c.model, c.costMicros,
    ],
  );
  return { ...reflectionResponse(row!), ...figuresOf(c) };
}

/** A stored reflection of the caller's scope, with its playbook; another scope's is not_found. */
export async function findReflection(call: Call, s: Scope, id: string): Promise<Reflection> {
  const [row] = await call.services.db.query<ReflectionRow>(
    `select ${REFLECTION_COLUMNS.split(', ').map((c) => `r.${c}`).join(', ')} from ace_reflections r join ace_playbooks p on p.id = r.playbook_id
     where r.id = $1 and p.user_id = $2 and p.scope = $3`,
    [id, s.userId, s.scope],
  );
  if (!row) throw notFound('Reflection not found');
  return reflectionResponse(row);
}
