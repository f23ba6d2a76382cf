import postgres from 'postgres';
import type { Db, Queryable } from './db.js';

type Sql = postgres.Sql | postgres.TransactionSql;

function wrap(sql: Sql): Queryable {
  return {
    async query<T>(text: string, params: readonly unknown[] = []) {
      const rows = await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[]);
      return rows as unknown as T[];
    },
  };
}

export async function openPostgres(url: string): Promise<Db> {
  const sql = postgres(url, {
    max: 10,
    onnotice: () => {},
    connect_timeout: 5,
    // int8 as number, as PGlite does: counts and sums here stay far below 2^53.
    types: { int8: { to: 20, from: [20], parse: (x: string) => Number(x), serialize: (x: number) => String(x) } },
  });
  await sql`select 1`;
  const base = wrap(sql);
  return {
    kind: 'postgres',
    query: base.query,
    transaction: (fn) => sql.begin((tx) => fn(wrap(tx))) as Promise<never>,
    close: () => sql.end({ timeout: 5 }),
  };
}
