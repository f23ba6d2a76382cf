// Change proposals on plans (Knowledge Hub items of type plan). A proposal is a unified diff against a
// pinned base version. Deciding is the plan owner's: a merge applies the diff to the base and, in one
// transaction holding the item's row lock, creates the new version only if the base is still current
// (else stale_base with the current version id); a reject creates no version. Blame attributes each
// line of the current plan to the version, proposal and author that introduced it.
import type { Principal } from '../../auth/principal.js';
import type { Fidelity } from '../../../workers/shared/fidelity.js';
import type { Queryable } from '../../store/db.js';
import type { Call } from '../call.js';
import { compressText } from '../compression/text.js';
import { conflict, forbidden, invalid, invalidInput, notFound } from '../errors.js';
import { editItem, getVersion, requireVisibleItem, staleBase, UUID, type ItemRow, type VersionRow } from '../knowledge/items.js';
import { isoOrNull } from '../../lib/time.js';

export const PLAN_TYPE = 'plan';
export const PROPOSAL_STATES = ['open', 'merged', 'rejected'] as const;
export type ProposalState = (typeof PROPOSAL_STATES)[number];
/** Largest plan text, proposal diff or discussion handled (characters). */
export const MAX_PLAN_CHARS = 2_000_000;

export interface ProposalRow {
  id: string;
  item_id: string;
  project_id: string;
  base_version_id: string;
  title: string;
  rationale: string | null;
  diff: string;
  source: 'manual' | 'distilled';
  status: ProposalState;
  author_user_id: string;
  author_key_id: string | null;
  decided_by_key_id: string | null;
  decision_comment: string | null;
  decided_at: Date | null;
  merged_version_id: string | null;
  created_at: Date;
}

export const proposalNotFound = (id: string) => notFound(`Proposal '${id}' not found`);

/** A live plan the caller may see; another type of item is not a plan. */
export async function requirePlanItem(db: Queryable, principal: Principal, projectId: string, itemId: string, lock = false): Promise<ItemRow> {
  const item = await requireVisibleItem(db, principal, projectId, itemId, lock);
  if (item.type !== PLAN_TYPE) throw invalid(`Item '${itemId}' is a ${item.type}, not a plan (create plans with gc_kb_ingest type "plan")`);
  return item;
}

async function requireBase(db: Queryable, item: ItemRow, baseVersionId: string): Promise<VersionRow> {
  const base = await getVersion(db, item.id, baseVersionId);
  if (!base) throw notFound(`Version '${baseVersionId}' not found for plan '${item.id}'`);
  return base;
}

export function proposalResponse(p: ProposalRow, currentVersionId?: string | null, includeDiff = true) {
  return {
    proposal_id: p.id,
    item_id: p.item_id,
    base_version_id: p.base_version_id,
    title: p.title,
    rationale: p.rationale,
    source: p.source,
    status: p.status,
    author_user_id: p.author_user_id,
    author_key_id: p.author_key_id,
    decided_by_key_id: p.decided_by_key_id,
    decision_comment: p.decision_comment,
    decided_at: isoOrNull(p.decided_at),
    merged_version_id: p.merged_version_id,
    created_at: isoOrNull(p.created_at),
    ...(currentVersionId !== undefined ? { stale: p.status === 'open' && p.base_version_id !== currentVersionId, current_version_id: currentVersionId } : {}),
    ...(includeDiff ? { diff: p.diff } : {}),
  };
}

async function insertProposal(db: Queryable, principal: Principal, item: ItemRow, base: VersionRow, p: { title: string; rationale: string | null; diff: string; source: 'manual' | 'distilled' }): Promise<ProposalRow> {
  const [row] = await db.query<ProposalRow>(
    `insert into plan_proposals (item_id, project_id, base_version_id, title, rationale, diff, source, author_user_id, author_key_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
    [item.id, item.project_id, base.id, p.title, p.rationale, p.diff, p.source, principal.userId, principal.keyId],
  );
  return row!;
}

/** A proposal from a unified diff or from the full proposed text (the diff is computed in the pool). */
export async function propose(
  call: Call,
  projectId: string,
  input: { itemId: string; baseVersionId: string; title: string; rationale?: string | null; diff?: string; content?: string },
) {
  const { services, principal } = call;
  const item = await requirePlanItem(services.db, principal, projectId, input.itemId);
  const base = await requireBase(services.db, item, input.baseVersionId);
  const out = await call.compute('planPropose', { base: base.content, content: input.content ?? null, diff: input.diff ?? null, label: item.name });
  if (!out.ok) {
    throw invalidInput(`The proposal does not apply to the base version: ${out.reason}`, [
      { loc: [input.diff !== undefined ? 'diff' : 'content'], msg: out.reason, type: 'value_error.patch' },
    ]);
  }
  const row = await insertProposal(services.db, principal, item, base, { title: input.title, rationale: input.rationale ?? null, diff: out.diff!, source: 'manual' });
  return { proposal: row, item, added_lines: out.added_lines, removed_lines: out.removed_lines };
}

/**
 * Distils a long discussion into a proposal: the text compression engine keeps the discussion's
 * sentences most relevant to the plan (query-guided by the title and the plan's name) at the given
 * fidelity, and the proposal appends them to the plan as a new section.
 */
export async function proposeDistilled(
  call: Call,
  projectId: string,
  input: { itemId: string; baseVersionId: string; discussion: string; title?: string; fidelity: Fidelity },
) {
  const { services, principal } = call;
  const item = await requirePlanItem(services.db, principal, projectId, input.itemId);
  const base = await requireBase(services.db, item, input.baseVersionId);
  const title = input.title?.trim() || `Distilled from a discussion of ${input.discussion.split(/\s+/).filter(Boolean).length} words`;
  const distilled = await compressText(call, { text: input.discussion, fidelity: input.fidelity, query: `${title} ${item.name}` });
  const body = distilled.compressed_text.trim();
  if (!body) throw invalid('The discussion distils to nothing');
  const content = `${base.content.replace(/\s+$/, '')}${base.content.trim() ? '\n\n' : ''}## ${title}\n\n${body}\n`;
  const out = await call.compute('planPropose', { base: base.content, content, label: item.name });
  if (!out.ok) throw invalid(`The distilled proposal could not be built: ${out.reason}`);
  const rationale = `Distilled with the compression engine at ${input.fidelity}: ${distilled.original_tokens} discussion tokens → ${distilled.compressed_tokens}.`;
  const row = await insertProposal(services.db, principal, item, base, { title, rationale, diff: out.diff!, source: 'distilled' });
  return {
    proposal: row,
    item,
    added_lines: out.added_lines,
    removed_lines: out.removed_lines,
    distillation: { discussion_tokens: distilled.original_tokens, distilled_tokens: distilled.compressed_tokens, savings_percent: distilled.savings_percent, fidelity: input.fidelity },
  };
}

export async function getProposal(db: Queryable, principal: Principal, projectId: string, proposalId: string): Promise<{ proposal: ProposalRow; item: ItemRow }> {
  if (!UUID.test(proposalId)) throw proposalNotFound(proposalId);
  const [row] = await db.query<ProposalRow>('select * from plan_proposals where id = $1 and project_id = $2', [proposalId, projectId]);
  if (!row) throw proposalNotFound(proposalId);
  // A proposal on a plan the caller may not see (private to another key, deleted) is not there for them.
  const item = await requirePlanItem(db, principal, projectId, row.item_id).catch(() => {
    throw proposalNotFound(proposalId);
  });
  return { proposal: row, item };
}

export async function listProposals(db: Queryable, principal: Principal, projectId: string, options: { itemId?: string; status?: ProposalState; limit: number }) {
  const params: unknown[] = [projectId];
  let where = 'p.project_id = $1 and i.deleted_at is null and (i.visibility = \'project\' or $2::boolean or i.created_by_key_id = $3::text)';
  params.push(principal.via === 'jwt', principal.keyId ?? '');
  if (options.itemId) {
    await requirePlanItem(db, principal, projectId, options.itemId);
    params.push(options.itemId);
    where += ` and p.item_id = $${params.length}`;
  }
  if (options.status) {
    params.push(options.status);
    where += ` and p.status = $${params.length}`;
  }
  params.push(options.limit);
  return db.query<ProposalRow & { current_version_id: string | null }>(
    `select p.*, i.current_version_id from plan_proposals p join kb_items i on i.id = p.item_id
      where ${where} order by p.created_at desc, p.id desc limit $${params.length}`,
    params,
  );
}

/** The plan's owner: the key that created the plan, or the project owner's identity-provider session. */
function isPlanOwner(principal: Principal, item: ItemRow): boolean {
  return principal.via === 'jwt' ? principal.userId === item.owner_id : !!principal.keyId && principal.keyId === item.created_by_key_id;
}

export type DecideOutcome =
  | { kind: 'merged'; proposal: ProposalRow; item: ItemRow; version: VersionRow }
  | { kind: 'rejected'; proposal: ProposalRow; item: ItemRow };

/**
 * Decides an open proposal. The diff is applied to the (immutable) base in the pool first; then one
 * transaction locks the proposal and the item, checks ownership and that the base is still current,
 * writes the version and marks the proposal merged. Two merges on one base: the second finds the
 * base no longer current and gets stale_base. A reject writes no version and leaves the plan as it is.
 */
export async function decide(call: Call, projectId: string, proposalId: string, decision: 'merge' | 'reject', comment: string | null): Promise<DecideOutcome> {
  const { services, principal } = call;
  const { proposal, item } = await getProposal(services.db, principal, projectId, proposalId);
  if (!isPlanOwner(principal, item)) throw forbidden(`Only the plan's owner (the key that created it) may decide proposals on '${item.name}'`);
  let content: string | null = null;
  if (decision === 'merge') {
    const base = await requireBase(services.db, item, proposal.base_version_id);
    const applied = await call.compute('planApply', { base: base.content, diff: proposal.diff });
    if (!applied.ok) throw invalid(`The proposal no longer applies to its base: ${applied.reason}`);
    content = applied.content;
  }
  const outcome = await services.db.transaction(async (tx): Promise<DecideOutcome> => {
    const [locked] = await tx.query<ProposalRow>('select * from plan_proposals where id = $1 for update', [proposal.id]);
    if (!locked || locked.status !== 'open') throw conflict(`Proposal '${proposal.id}' is already ${locked?.status ?? 'gone'}`, { code: 'already_decided', extra: { status: locked?.status ?? null } });
    const current = await requirePlanItem(tx, principal, projectId, item.id, true);
    if (decision === 'reject') {
      const [row] = await tx.query<ProposalRow>(
        `update plan_proposals set status = 'rejected', decided_by_key_id = $2, decision_comment = $3, decided_at = now() where id = $1 returning *`,
        [proposal.id, principal.keyId, comment],
      );
      return { kind: 'rejected', proposal: row!, item: current };
    }
    if (current.current_version_id !== proposal.base_version_id) throw staleBase(current.current_version_id);
    const edited = await editItem(tx, principal, projectId, item.id, { content: content!, baseVersionId: proposal.base_version_id });
    const [row] = await tx.query<ProposalRow>(
      `update plan_proposals set status = 'merged', decided_by_key_id = $2, decision_comment = $3, decided_at = now(), merged_version_id = $4 where id = $1 returning *`,
      [proposal.id, principal.keyId, comment, edited.newVersion!.id],
    );
    return { kind: 'merged', proposal: row!, item: edited.item, version: edited.newVersion! };
  });
  if (outcome.kind === 'merged' && outcome.item.status === 'pending') services.knowledge.enqueue({ itemId: outcome.item.id, versionId: outcome.version.id });
  return outcome;
}

/** Each line of the current plan with the version, proposal and author that introduced it. */
export async function blame(call: Call, projectId: string, itemId: string) {
  const { services, principal } = call;
  const item = await requirePlanItem(services.db, principal, projectId, itemId);
  const versions = await services.db.query<VersionRow>(
    `select v.* from kb_versions v where v.item_id = $1 and v.number <= (select number from kb_versions where id = $2) order by v.number`,
    [item.id, item.current_version_id],
  );
  const total = versions.reduce((n, v) => n + v.content.length, 0);
  if (total > 50 * MAX_PLAN_CHARS) throw invalid('This plan has too much history to blame in one call');
  const merged = await services.db.query<{ merged_version_id: string; id: string; title: string; author_key_id: string | null; author_user_id: string }>(
    `select merged_version_id, id, title, author_key_id, author_user_id from plan_proposals where item_id = $1 and status = 'merged'`,
    [item.id],
  );
  const byVersion = new Map(merged.map((m) => [m.merged_version_id, m]));
  const { origins, lines } = await call.compute('planBlame', { versions: versions.map((v) => v.content) });
  const origin = versions.map((v) => {
    const p = byVersion.get(v.id);
    return {
      version_id: v.id,
      version_number: v.number,
      proposal_id: p?.id ?? null,
      proposal_title: p?.title ?? null,
      author_key_id: p ? p.author_key_id : v.created_by_key_id,
      author_user_id: p ? p.author_user_id : item.owner_id,
      at: isoOrNull(v.created_at),
    };
  });
  return {
    item_id: item.id,
    current_version_id: item.current_version_id,
    version_count: versions.length,
    lines: lines.map((text, i) => ({ line: i + 1, text, ...origin[origins[i]!]! })),
  };
}
