import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../lib/root.js';
import { withAdvisoryLock } from './advisoryLock.js';
import type { Db } from './db.js';

const MIGRATIONS_DIR = join(packageRoot(), 'src', 'store', 'migrations');

/**
 * Applies the plain-SQL files in src/store/migrations in name order, each once, each in a transaction.
 * Instances starting together on one PostgreSQL database take turns (an advisory lock): the first
 * applies what is missing, the others then find it applied.
 */
export function migrate(db: Db): Promise<string[]> {
  return withAdvisoryLock(db, 'gc:migrations', () => applyMigrations(db));
}

async function applyMigrations(db: Db): Promise<string[]> {
  await db.query(`create table if not exists schema_migrations (
    name text primary key, applied_at timestamptz not null default now())`);
  const done = new Set((await db.query<{ name: string }>('select name from schema_migrations')).map((r) => r.name));
  const applied: string[] = [];
  for (const name of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort()) {
    if (done.has(name)) continue;
    const sql = readFileSync(join(MIGRATIONS_DIR, name), 'utf8');
    await db.transaction(async (tx) => {
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query('insert into schema_migrations (name) values ($1)', [name]);
    });
    applied.push(name);
  }
  return applied;
}

// Both drivers run one statement per extended-protocol query; migrations keep to plain statements (no $$ bodies).
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}
