// Incremental delta updates of a playbook (the ACE curator's output, a direct grow): new bullets are
// inserted unless an existing bullet (or an earlier one of the same delta) says the same thing by
// embedding cosine; counters of named bullets move. Nothing else is written: bullets a delta does not
// name keep their rows byte for byte, and the playbook is never regenerated.
import type { Call } from '../call.js';
import { backoff, withPlaybookLock } from './lock.js';
import { invalid, unavailable } from '../errors.js';
import { BULLET_COLUMNS, encodeVector, label, loadVectors, MAX_BULLETS, type BulletRow, type PlaybookRow } from './playbooks.js';

export interface AddCandidate {
  section: string;
  content: string;
}

export interface CounterUpdate {
  bulletId: string;
  helpful: number;
  harmful: number;
}

export type AppliedOp =
  | { op: 'ADD'; status: 'added'; bullet_id: string; label: string; section: string; content: string; nearest_similarity: number | null }
  | { op: 'ADD'; status: 'duplicate'; section: string; content: string; duplicate_of: string; duplicate_label: string; similarity: number }
  | { op: 'UPDATE'; status: 'updated'; bullet_id: string; label: string; helpful_delta: number; harmful_delta: number; helpful_count: number; harmful_count: number }
  | { op: 'UPDATE'; status: 'gone'; bullet_id: string; helpful_delta: number; harmful_delta: number };

export interface DeltaResult {
  delta_id: string;
  operations: AppliedOp[];
  added: number;
  duplicates: number;
  updated: number;
  playbook_version: number;
}

export interface DeltaInput {
  adds: AddCandidate[];
  updates: CounterUpdate[];
  threshold: number;
  source: 'curate' | 'grow';
  reflectionId?: string;
  path?: 'model' | 'fallback';
}

const ATTEMPTS = 6;

/** Applies one delta; retried when another delta of the same playbook landed in between. */
export async function applyDelta(call: Call, playbook: PlaybookRow, input: DeltaInput): Promise<DeltaResult> {
  const { db } = call.services;
  return withPlaybookLock(playbook.id, async () => {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt) await backoff(attempt);
      const [current] = await db.query<{ version: string }>('select version from ace_playbooks where id = $1', [playbook.id]);
      if (!current) throw invalid('The playbook was deleted meanwhile');
      const corpus = await loadVectors(db, playbook.id);
      if (corpus.n + input.adds.length > MAX_BULLETS) {
        throw invalid(`The playbook would hold more than ${MAX_BULLETS} bullets; refine it (ace_refine_context) or use another playbook`, { code: 'playbook_full' });
      }
      const matched = input.adds.length
        ? await call.compute('aceMatch', { texts: input.adds.map((a) => a.content), corpus: { vectors: corpus.vectors, n: corpus.n, dims: corpus.dims }, threshold: input.threshold })
        : null;
      const result = await db.transaction(async (tx) => {
        // Taking the version is the lock: a delta computed against an older playbook starts again.
        const [bumped] = await tx.query<{ version: string; next_seq: number }>(
          'update ace_playbooks set version = version + 1, next_seq = next_seq + $3, updated_at = now() where id = $1 and version = $2 returning version, next_seq',
          [playbook.id, current.version, input.adds.length],
        );
        if (!bumped) return null;
        let seq = bumped.next_seq - input.adds.length;
        const ops: AppliedOp[] = [];
        const addedAs: ({ id: string; label: string } | null)[] = [];
        for (let i = 0; i < input.adds.length; i++) {
          const a = input.adds[i]!;
          const m = matched!.matches[i]!;
          if (m.corpus !== null && m.corpus_similarity >= input.threshold) {
            const dup = corpus.rows[m.corpus]!;
            ops.push({ op: 'ADD', status: 'duplicate', section: a.section, content: a.content, duplicate_of: dup.id, duplicate_label: label(dup), similarity: m.corpus_similarity });
            addedAs.push({ id: dup.id, label: label(dup) });
            continue;
          }
          if (m.candidate !== null) {
            const dup = addedAs[m.candidate]!;
            ops.push({ op: 'ADD', status: 'duplicate', section: a.section, content: a.content, duplicate_of: dup.id, duplicate_label: dup.label, similarity: m.candidate_similarity });
            addedAs.push(dup);
            continue;
          }
          const [row] = await tx.query<BulletRow>(
            `insert into ace_bullets (playbook_id, seq, section, content, tokens, embedding, dims) values ($1, $2, $3, $4, $5, $6, $7) returning ${BULLET_COLUMNS}`,
            [playbook.id, seq++, a.section, a.content, matched!.tokens[i]!, encodeVector(matched!.vectors[i]!), matched!.dims],
          );
          ops.push({ op: 'ADD', status: 'added', bullet_id: row!.id, label: label(row!), section: row!.section, content: row!.content, nearest_similarity: m.corpus === null ? null : m.corpus_similarity });
          addedAs.push({ id: row!.id, label: label(row!) });
        }
        for (const u of input.updates) {
          if (!u.helpful && !u.harmful) continue;
          const [row] = await tx.query<BulletRow>(
            `update ace_bullets set helpful_count = helpful_count + $3, harmful_count = harmful_count + $4, version = version + 1, updated_at = now()
             where id = $1 and playbook_id = $2 returning ${BULLET_COLUMNS}`,
            [u.bulletId, playbook.id, u.helpful, u.harmful],
          );
          ops.push(
            row
              ? { op: 'UPDATE', status: 'updated', bullet_id: row.id, label: label(row), helpful_delta: u.helpful, harmful_delta: u.harmful, helpful_count: row.helpful_count, harmful_count: row.harmful_count }
              // Merged away or pruned by a refine since the reflection named it.
              : { op: 'UPDATE', status: 'gone', bullet_id: u.bulletId, helpful_delta: u.helpful, harmful_delta: u.harmful },
          );
        }
        const version = Number(bumped.version);
        const [delta] = await tx.query<{ id: string }>(
          'insert into ace_deltas (playbook_id, source, reflection_id, path, operations, playbook_version) values ($1, $2, $3, $4, $5::text::jsonb, $6) returning id',
          [playbook.id, input.source, input.reflectionId ?? null, input.path ?? null, JSON.stringify(ops), version],
        );
        return {
          delta_id: delta!.id,
          operations: ops,
          added: ops.filter((o) => o.op === 'ADD' && o.status === 'added').length,
          duplicates: ops.filter((o) => o.op === 'ADD' && o.status === 'duplicate').length,
          updated: ops.filter((o) => o.op === 'UPDATE' && o.status === 'updated').length,
          playbook_version: version,
        };
      });
      if (result) return result;
    }
    throw unavailable('The playbook is being changed by other calls; retry', 1);
  });
}

/** Counter moves from the reflector's tags: helpful +1, harmful +1, neutral nothing. */
export function updatesFromTags(tags: { bullet_id: string; tag: string }[]): CounterUpdate[] {
  const by = new Map<string, CounterUpdate>();
  for (const t of tags) {
    const u = by.get(t.bullet_id) ?? { bulletId: t.bullet_id, helpful: 0, harmful: 0 };
    if (t.tag === 'helpful') u.helpful++;
    else if (t.tag === 'harmful') u.harmful++;
    by.set(t.bullet_id, u);
  }
  return [...by.values()];
}
