// Bi-temporal facts and preferences derived from memories: a new value for a key ends the older one
// (valid_to, superseded_by); invalidating sets valid_to and invalidated_at and keeps the row.
import type { Db, Queryable } from '../../store/db.js';
import { DomainError, invalidInput, notFound } from '../errors.js';
import { bumpScope, FACT_COLUMNS, type FactRow, type Scope } from './memories.js';

export async function invalidateFact(db: Db, s: Scope, factId: string, input: { reason?: string; validTo?: string }): Promise<FactRow> {
  const validTo = input.validTo ? new Date(input.validTo) : new Date();
  if (Number.isNaN(validTo.getTime())) {
    throw invalidInput('valid_to is not a date', [{ loc: ['valid_to'], msg: 'not an ISO 8601 date', type: 'value_error.datetime' }]);
  }
  return db.transaction(async (tx) => {
    const [f] = await tx.query<FactRow>(`select ${FACT_COLUMNS} from memory_facts where id = $1 and user_id = $2 and scope = $3 for update`, [factId, s.userId, s.scope]);
    if (!f) throw notFound('Fact not found');
    if (f.invalidated_at !== null) throw new DomainError('invalid', 'This fact is already invalidated', { code: 'already_invalidated' });
    if (validTo.getTime() < new Date(f.valid_from).getTime()) {
      throw invalidInput('valid_to is before the fact became valid', [{ loc: ['valid_to'], msg: 'must not be before valid_from', type: 'value_error.range' }]);
    }
    // A superseded fact already ended; its valid_to stays unless the caller ends it earlier.
    const [row] = await tx.query<FactRow>(
      `update memory_facts set invalidated_at = now(), invalidation_reason = $2,
         valid_to = case when valid_to is null or valid_to > $3::timestamptz then $3::timestamptz else valid_to end
       where id = $1 returning ${FACT_COLUMNS}`,
      [factId, input.reason ?? null, validTo],
    );
    await bumpScope(tx, s);
    return row!;
  });
}

/** Every version of a key (or of the fact's key), oldest first; all facts of the scope when neither is given. */
export async function factHistory(db: Queryable, s: Scope, input: { key?: string; factId?: string; limit: number }): Promise<{ key: string | null; facts: FactRow[] }> {
  let key = input.key?.trim().toLowerCase() ?? null;
  if (input.factId) {
    const [f] = await db.query<{ key: string }>('select key from memory_facts where id = $1 and user_id = $2 and scope = $3', [input.factId, s.userId, s.scope]);
    if (!f) throw notFound('Fact not found');
    key = f.key;
  }
  const params: unknown[] = [s.userId, s.scope];
  let where = 'user_id = $1 and scope = $2';
  if (key !== null) {
    params.push(key);
    where += ' and key = $3';
  }
  params.push(input.limit);
  const facts = await db.query<FactRow>(
    `select ${FACT_COLUMNS} from memory_facts where ${where} order by key, valid_from, recorded_at limit $${params.length}`,
    params,
  );
  return { key, facts };
}

/** Facts and preferences that hold now (not ended, not invalidated), newest first. */
export async function currentFacts(db: Queryable, s: Scope): Promise<FactRow[]> {
  return db.query<FactRow>(
    `select ${FACT_COLUMNS} from memory_facts
     where user_id = $1 and scope = $2 and invalidated_at is null and valid_from <= now() and (valid_to is null or valid_to > now())
     order by valid_from desc, recorded_at desc limit 500`,
    [s.userId, s.scope],
  );
}
