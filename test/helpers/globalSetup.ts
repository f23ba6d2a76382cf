// Once per test run: a migrated database that every test server starts from, so a server costs a copy
// instead of PGlite's initdb (or a new PostgreSQL database) plus every migration. The migrations still
// run here, on an empty database, through the production migrate(): a broken one fails the run.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/store/migrate.js';
import { PGlite } from '@electric-sql/pglite';
import { pgliteDb } from '../../src/store/pglite.js';
import { openPostgres } from '../../src/store/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a migrated PGlite data dir (PGlite runs), or the name of a migrated template database (PostgreSQL runs). */
    databaseTemplate: { pgliteDump: string | null; postgresTemplate: string | null };
  }
}

/** postgres://…/name for the admin URL's server. */
export function databaseUrl(admin: string, name: string): string {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const admin = process.env.DATABASE_URL;
  if (!admin) {
    const pg = new PGlite();
    await migrate(pgliteDb(pg));
    const dir = mkdtempSync(join(tmpdir(), 'gc-test-template-'));
    const file = join(dir, 'pglite.tar');
    writeFileSync(file, new Uint8Array(await (await pg.dumpDataDir('none')).arrayBuffer()));
    await pg.close();
    project.provide('databaseTemplate', { pgliteDump: file, postgresTemplate: null });
    return async () => rmSync(dir, { recursive: true, force: true });
  }
  const name = `gc_test_tpl_${randomBytes(6).toString('hex')}`;
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  await sql.unsafe(`create database ${name}`);
  const db = await openPostgres(databaseUrl(admin, name));
  await migrate(db);
  // No connection may stay open on a template while databases are created from it.
  await db.close();
  project.provide('databaseTemplate', { pgliteDump: null, postgresTemplate: name });
  return async () => {
    await sql.unsafe(`drop database if exists ${name} with (force)`);
    await sql.end();
  };
}
