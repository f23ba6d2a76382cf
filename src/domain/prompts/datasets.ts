// Datasets of test cases for experiments: each case has the template's variables and what a good
// output looks like (expected text, strings it contains, a JSON schema it satisfies). Scoped like templates.
import type { CaseExpectation } from '../../../workers/prompts/scoring.js';
import type { SyntheticCase } from '../../../workers/prompts/synthetic.js';
import type { Queryable } from '../../store/db.js';
import type { Call } from '../call.js';
import { invalidInput, notFound } from '../errors.js';
import { UUID } from '../knowledge/items.js';
import type { Scope } from '../memory/memories.js';
import { iso } from '../../lib/time.js';

export const MAX_CASES = 500;

export interface DatasetCase extends CaseExpectation {
  variables: Record<string, unknown>;
  source?: string;
}

export interface DatasetRow {
  id: string;
  user_id: string;
  scope: string;
  name: string;
  description: string | null;
  cases: unknown;
  case_count: number;
  source: string;
  created_at: Date;
}

export const datasetNotFound = (id: string) => notFound(`Dataset '${id}' not found`);

export function casesOf(row: DatasetRow): DatasetCase[] {
  return (typeof row.cases === 'string' ? JSON.parse(row.cases) : row.cases) as DatasetCase[];
}

export async function getDataset(db: Queryable, s: Scope, id: string): Promise<DatasetRow> {
  if (!UUID.test(id)) throw datasetNotFound(id);
  const [row] = await db.query<DatasetRow>('select * from prompt_datasets where id = $1 and user_id = $2 and scope = $3', [id, s.userId, s.scope]);
  if (!row) throw datasetNotFound(id);
  return row;
}

export function datasetResponse(row: DatasetRow, withCases: boolean) {
  return {
    dataset_id: row.id,
    name: row.name,
    description: row.description,
    case_count: row.case_count,
    source: row.source,
    created_at: iso(row.created_at),
    ...(withCases ? { cases: casesOf(row) } : {}),
  };
}

/** Stores a dataset after checking in the pool that every JSON schema compiles. */
export async function createDataset(call: Call, s: Scope, input: { name: string; description?: string; cases: (DatasetCase | SyntheticCase)[]; source: string }): Promise<DatasetRow> {
  const schemas = input.cases.flatMap((c, index) => (c.json_schema ? [{ index, schema: c.json_schema }] : []));
  if (schemas.length) {
    const bad = await call.compute('datasetCheckSchemas', { schemas });
    if (bad.length) {
      throw invalidInput(
        `cases[${bad[0]!.index}].json_schema is not a usable JSON schema: ${bad[0]!.error}`,
        bad.map((b) => ({ loc: ['cases', b.index, 'json_schema'], msg: b.error ?? 'invalid schema', type: 'value_error.json_schema' })),
      );
    }
  }
  const [row] = await call.services.db.query<DatasetRow>(
    `insert into prompt_datasets (user_id, scope, name, description, cases, case_count, source) values ($1, $2, $3, $4, $5::text::jsonb, $6, $7) returning *`,
    [s.userId, s.scope, input.name, input.description ?? null, JSON.stringify(input.cases), input.cases.length, input.source],
  );
  return row!;
}

export async function listDatasets(db: Queryable, s: Scope, options: { limit: number; offset: number }) {
  const [{ n }] = (await db.query<{ n: string | number }>('select count(*) as n from prompt_datasets where user_id = $1 and scope = $2', [s.userId, s.scope])) as [{ n: string | number }];
  const rows = await db.query<DatasetRow>(
    'select * from prompt_datasets where user_id = $1 and scope = $2 order by created_at desc, id desc limit $3 offset $4',
    [s.userId, s.scope, options.limit, options.offset],
  );
  return { total: Number(n), rows };
}
