// Prompt templates: every save is a new immutable version; labels (production, staging, canary)
// point at versions and move only inside a transaction that also writes the audit row.
// Scoped like memory: the caller's user and the key's project ('' for an unbound key).
import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../store/db.js';
import type { VariableSpec } from '../../../workers/prompts/templates.js';
import type { Call } from '../call.js';
import { conflict, DomainError, invalid, notFound } from '../errors.js';
import { UUID } from '../knowledge/items.js';
import type { Scope } from '../memory/memories.js';
import { iso, isoOrNull } from '../../lib/time.js';

export const LABELS = ['production', 'staging', 'canary'] as const;
export type Label = (typeof LABELS)[number];
export const MAX_TEMPLATE_CHARS = 100_000;

export interface TemplateRow {
  id: string;
  user_id: string;
  scope: string;
  name: string;
  description: string | null;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
}

export interface VersionRow {
  id: string;
  template_id: string;
  number: number;
  body: string;
  variables: unknown;
  note: string | null;
  created_at: Date;
}

/** What a version stores about its variables. */
export interface StoredVariables {
  variables: VariableSpec[];
  section_fields: string[];
}

export const templateNotFound = (id: string) => notFound(`Prompt template '${id}' not found`);

export function storedVariables(v: VersionRow): StoredVariables {
  return (typeof v.variables === 'string' ? JSON.parse(v.variables) : v.variables) as StoredVariables;
}

/** Parses the body in the pool and settles its variables; bad syntax or declarations are invalid input. */
async function analyze(call: Call, body: string, declared: VariableSpec[] | null): Promise<{ stored: StoredVariables; tokens: number }> {
  const r = await call.compute('promptAnalyze', { body, declared });
  if (!r.ok) throw invalid(r.error, { code: r.error.startsWith('invalid template syntax') ? 'invalid_template' : 'invalid_variables' });
  return { stored: { variables: r.variables, section_fields: r.analysis.section_fields }, tokens: r.tokens };
}

export async function getTemplate(db: Queryable, s: Scope, id: string, lock = false): Promise<TemplateRow> {
  if (!UUID.test(id)) throw templateNotFound(id);
  const [row] = await db.query<TemplateRow>(
    `select * from prompt_templates where id = $1 and user_id = $2 and scope = $3${lock ? ' for update' : ''}`,
    [id, s.userId, s.scope],
  );
  if (!row) throw templateNotFound(id);
  return row;
}

export async function labelsOf(db: Queryable, templateId: string): Promise<Record<string, number>> {
  const rows = await db.query<{ label: string; number: number }>(
    'select l.label, v.number from prompt_labels l join prompt_template_versions v on v.id = l.version_id where l.template_id = $1 order by l.label',
    [templateId],
  );
  return Object.fromEntries(rows.map((r) => [r.label, r.number]));
}

/** A version by number, by label, or the latest. */
export async function getVersion(db: Queryable, t: TemplateRow, which: { version?: number; label?: Label }): Promise<VersionRow> {
  if (which.version !== undefined && which.label !== undefined) throw invalid('Give version or label, not both');
  if (which.label !== undefined) {
    const [row] = await db.query<VersionRow>(
      'select v.* from prompt_labels l join prompt_template_versions v on v.id = l.version_id where l.template_id = $1 and l.label = $2',
      [t.id, which.label],
    );
    if (!row) throw notFound(`Label '${which.label}' is not deployed on prompt template '${t.id}'`, { code: 'label_not_deployed' });
    return row;
  }
  const number = which.version ?? t.latest_version;
  const [row] = await db.query<VersionRow>('select * from prompt_template_versions where template_id = $1 and number = $2', [t.id, number]);
  if (!row) throw notFound(`Prompt template '${t.id}' has no version ${number} (latest is ${t.latest_version})`);
  return row;
}

/** A template's versions, newest first (at most 200), as get_prompt_template lists them. */
export async function versionList(db: Queryable, templateId: string) {
  const rows = await db.query<{ number: number; note: string | null; created_at: Date }>(
    'select number, note, created_at from prompt_template_versions where template_id = $1 order by number desc limit 200',
    [templateId],
  );
  return rows.map((x) => ({ version: x.number, note: x.note, created_at: iso(x.created_at) }));
}

export function templateResponse(t: TemplateRow, labels: Record<string, number>) {
  return {
    template_id: t.id,
    name: t.name,
    description: t.description,
    latest_version: t.latest_version,
    labels,
    created_at: isoOrNull(t.created_at),
    updated_at: isoOrNull(t.updated_at),
  };
}

export function versionResponse(v: VersionRow) {
  const stored = storedVariables(v);
  return { version: v.number, version_id: v.id, body: v.body, variables: stored.variables, section_fields: stored.section_fields, note: v.note, created_at: isoOrNull(v.created_at) };
}

export async function createTemplate(
  call: Call,
  s: Scope,
  input: { name: string; description?: string; body: string; variables?: VariableSpec[] },
): Promise<{ template: TemplateRow; version: VersionRow; tokens: number }> {
  const { stored, tokens } = await analyze(call, input.body, input.variables ?? null);
  const principal = call.principal;
  return call.services.db.transaction(async (tx) => {
    const [taken] = await tx.query('select 1 from prompt_templates where user_id = $1 and scope = $2 and name = $3', [s.userId, s.scope, input.name]);
    if (taken) throw conflict(`A prompt template named '${input.name}' already exists; update it with update_prompt_template`, { code: 'name_taken' });
    const [template] = await tx.query<TemplateRow>(
      'insert into prompt_templates (user_id, scope, name, description) values ($1, $2, $3, $4) returning *',
      [s.userId, s.scope, input.name, input.description ?? null],
    );
    const [version] = await tx.query<VersionRow>(
      `insert into prompt_template_versions (template_id, number, body, variables, created_by_key_id) values ($1, 1, $2, $3::text::jsonb, $4) returning *`,
      [template!.id, input.body, JSON.stringify(stored), principal.keyId],
    );
    return { template: template!, version: version!, tokens };
  });
}

/** A new version: the given body (or the latest one) with the given (or re-inferred/kept) variables. */
export async function updateTemplate(
  call: Call,
  s: Scope,
  id: string,
  input: { body?: string; variables?: VariableSpec[]; description?: string; note?: string },
): Promise<{ template: TemplateRow; version: VersionRow; tokens: number }> {
  const db = call.services.db;
  const current = await getTemplate(db, s, id);
  const latest = await getVersion(db, current, {});
  const body = input.body ?? latest.body;
  // Declarations carry over to a new body when they still fit it; otherwise they are re-inferred.
  const kept = storedVariables(latest).variables;
  let analysed: { stored: StoredVariables; tokens: number };
  if (input.variables) analysed = await analyze(call, body, input.variables);
  else {
    try {
      analysed = await analyze(call, body, kept);
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'invalid_variables') throw err;
      analysed = await analyze(call, body, null);
    }
  }
  const { stored, tokens } = analysed;
  return db.transaction(async (tx) => {
    const t = await getTemplate(tx, s, id, true);
    const number = t.latest_version + 1;
    const [version] = await tx.query<VersionRow>(
      `insert into prompt_template_versions (template_id, number, body, variables, note, created_by_key_id) values ($1, $2, $3, $4::text::jsonb, $5, $6) returning *`,
      [t.id, number, body, JSON.stringify(stored), input.note ?? null, call.principal.keyId],
    );
    const [template] = await tx.query<TemplateRow>(
      'update prompt_templates set latest_version = $2, description = coalesce($3, description), updated_at = now() where id = $1 returning *',
      [t.id, number, input.description ?? null],
    );
    return { template: template!, version: version!, tokens };
  });
}

export async function listTemplates(db: Queryable, s: Scope, options: { limit: number; offset: number; nameContains?: string }) {
  const params: unknown[] = [s.userId, s.scope];
  let where = 'user_id = $1 and scope = $2';
  if (options.nameContains) {
    params.push(`%${options.nameContains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where += ` and name ilike $${params.length}`;
  }
  const [{ n }] = (await db.query<{ n: string | number }>(`select count(*) as n from prompt_templates where ${where}`, params)) as [{ n: string | number }];
  params.push(options.limit, options.offset);
  const rows = await db.query<TemplateRow>(
    `select * from prompt_templates where ${where} order by updated_at desc, id desc limit $${params.length - 1} offset $${params.length}`,
    params,
  );
  const labels = rows.length
    ? await db.query<{ template_id: string; label: string; number: number }>(
        `select l.template_id, l.label, v.number from prompt_labels l join prompt_template_versions v on v.id = l.version_id where l.template_id = any($1::uuid[])`,
        [rows.map((r) => r.id)],
      )
    : [];
  return {
    total: Number(n),
    templates: rows.map((r) => templateResponse(r, Object.fromEntries(labels.filter((l) => l.template_id === r.id).map((l) => [l.label, l.number])))),
  };
}

export interface LabelMove {
  label: Label;
  from_version: number | null;
  to_version: number;
  moved_by_user_id: string;
  moved_by_key_id: string | null;
  moved_at: string;
}

/**
 * Points a label at a version. The template row is locked for the move, so concurrent deploys of the
 * same template are serialised and each audit row's from_version is the version the label really left.
 */
export async function deployVersion(db: Queryable & { transaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T> }, principal: Principal, s: Scope, id: string, label: Label, version: number): Promise<LabelMove> {
  return db.transaction(async (tx) => {
    const t = await getTemplate(tx, s, id, true);
    const target = await getVersion(tx, t, { version });
    const [current] = await tx.query<{ number: number }>(
      'select v.number from prompt_labels l join prompt_template_versions v on v.id = l.version_id where l.template_id = $1 and l.label = $2',
      [t.id, label],
    );
    await tx.query(
      `insert into prompt_labels (template_id, label, version_id) values ($1, $2, $3)
       on conflict (template_id, label) do update set version_id = excluded.version_id, updated_at = now()`,
      [t.id, label, target.id],
    );
    const [audit] = await tx.query<{ moved_at: Date }>(
      `insert into prompt_label_audit (template_id, label, from_version, to_version, actor_user_id, actor_key_id) values ($1, $2, $3, $4, $5, $6) returning moved_at`,
      [t.id, label, current?.number ?? null, target.number, principal.userId, principal.keyId],
    );
    await tx.query('update prompt_templates set updated_at = now() where id = $1', [t.id]);
    return { label, from_version: current?.number ?? null, to_version: target.number, moved_by_user_id: principal.userId, moved_by_key_id: principal.keyId, moved_at: isoOrNull(audit!.moved_at)! };
  });
}

export async function labelHistory(db: Queryable, templateId: string, limit = 50): Promise<LabelMove[]> {
  const rows = await db.query<{ label: Label; from_version: number | null; to_version: number; actor_user_id: string; actor_key_id: string | null; moved_at: Date }>(
    'select * from prompt_label_audit where template_id = $1 order by id desc limit $2',
    [templateId, limit],
  );
  return rows.map((r) => ({ label: r.label, from_version: r.from_version, to_version: r.to_version, moved_by_user_id: r.actor_user_id, moved_by_key_id: r.actor_key_id, moved_at: isoOrNull(r.moved_at)! }));
}

/** Renders a version with typed values; missing, unknown or mistyped values are one clear error. */
export async function renderVersion(call: Call, v: VersionRow, values: Record<string, unknown>, model?: string | null) {
  const stored = storedVariables(v);
  const r = await call.compute('promptRender', { body: v.body, variables: stored.variables, section_fields: stored.section_fields, values, model: model ?? null });
  if (!r.ok) throw invalid(r.message, { code: 'invalid_variables', extra: { problems: r.problems } });
  return r;
}
