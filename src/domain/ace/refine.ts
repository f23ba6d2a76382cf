// ACE grow-and-refine: near-duplicate bullets (embedding cosine at or over a threshold, computed in the
// pool) merge into the earliest of their group with the counters summed; bullets whose harmful count
// exceeds their helpful count by the margin are pruned. Only the bullets named change: the kept one's
// counters move, the merged and pruned ones are deleted, everything else stays byte for byte.
import type { Call } from '../call.js';
import { backoff, withPlaybookLock } from './lock.js';
import { invalid, unavailable } from '../errors.js';
import { label, loadVectors, type BulletRow, type PlaybookRow } from './playbooks.js';

export interface RefineInput {
  threshold: number;
  pruneMargin: number;
  dryRun: boolean;
}

const brief = (b: BulletRow) => ({ bullet_id: b.id, label: label(b), section: b.section, content: b.content, helpful_count: b.helpful_count, harmful_count: b.harmful_count });

export interface RefineResult {
  playbook_id: string;
  merged: { kept: ReturnType<typeof brief>; merged: (ReturnType<typeof brief> & { similarity: number })[]; helpful_count: number; harmful_count: number }[];
  pruned: ReturnType<typeof brief>[];
  bullets_before: number;
  bullets_after: number;
  dry_run: boolean;
  delta_id: string | null;
  playbook_version: number;
}

const ATTEMPTS = 6;

export async function refine(call: Call, playbook: PlaybookRow, input: RefineInput): Promise<RefineResult> {
  const { db } = call.services;
  return withPlaybookLock(playbook.id, async () => {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt) await backoff(attempt);
      const [current] = await db.query<{ version: string }>('select version from ace_playbooks where id = $1', [playbook.id]);
      if (!current) throw invalid('The playbook was deleted meanwhile');
      const corpus = await loadVectors(db, playbook.id);
      const { clusters } = corpus.n > 1 ? await call.compute('aceClusters', { vectors: corpus.vectors, n: corpus.n, dims: corpus.dims, threshold: input.threshold }) : { clusters: [] };
      const merged = clusters.map((c) => {
        const kept = corpus.rows[c.keep]!;
        const members = c.merged.map((m) => ({ ...brief(corpus.rows[m.index]!), similarity: m.similarity }));
        return {
          kept: brief(kept),
          merged: members,
          helpful_count: kept.helpful_count + members.reduce((n, m) => n + m.helpful_count, 0),
          harmful_count: kept.harmful_count + members.reduce((n, m) => n + m.harmful_count, 0),
        };
      });
      // Pruning judges the counters after merging (a merged group counts as one bullet).
      const gone = new Set(merged.flatMap((g) => g.merged.map((m) => m.bullet_id)));
      const after = new Map(merged.map((g) => [g.kept.bullet_id, g]));
      const pruned = corpus.rows
        .filter((b) => !gone.has(b.id))
        .map((b) => {
          const g = after.get(b.id);
          return g ? { ...brief(b), helpful_count: g.helpful_count, harmful_count: g.harmful_count } : brief(b);
        })
        .filter((b) => b.harmful_count - b.helpful_count >= input.pruneMargin);
      const prunedIds = new Set(pruned.map((p) => p.bullet_id));
      const result = { playbook_id: playbook.id, merged, pruned, bullets_before: corpus.n, bullets_after: corpus.n - gone.size - pruned.length, dry_run: input.dryRun };
      if (input.dryRun || (!merged.length && !pruned.length)) return { ...result, delta_id: null, playbook_version: Number(current.version) };
      const written = await db.transaction(async (tx) => {
        const [bumped] = await tx.query<{ version: string }>(
          'update ace_playbooks set version = version + 1, updated_at = now() where id = $1 and version = $2 returning version',
          [playbook.id, current.version],
        );
        if (!bumped) return null;
        for (const g of merged) {
          if (prunedIds.has(g.kept.bullet_id)) continue;
          await tx.query('update ace_bullets set helpful_count = $2, harmful_count = $3, version = version + 1, updated_at = now() where id = $1', [g.kept.bullet_id, g.helpful_count, g.harmful_count]);
        }
        const deleted = [...gone, ...prunedIds];
        if (deleted.length) await tx.query('delete from ace_bullets where playbook_id = $1 and id = any($2::uuid[])', [playbook.id, deleted]);
        const operations = [
          ...merged.map((g) => ({ op: 'MERGE', kept: g.kept.bullet_id, merged: g.merged.map((m) => m.bullet_id), helpful_count: g.helpful_count, harmful_count: g.harmful_count })),
          ...pruned.map((p) => ({ op: 'PRUNE', bullet_id: p.bullet_id, helpful_count: p.helpful_count, harmful_count: p.harmful_count })),
        ];
        const [delta] = await tx.query<{ id: string }>(
          "insert into ace_deltas (playbook_id, source, operations, playbook_version) values ($1, 'refine', $2::text::jsonb, $3) returning id",
          [playbook.id, JSON.stringify(operations), bumped.version],
        );
        return { delta_id: delta!.id, playbook_version: Number(bumped.version) };
      });
      if (written) return { ...result, ...written };
    }
    throw unavailable('The playbook is being changed by other calls; retry', 1);
  });
}
