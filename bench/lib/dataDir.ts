// A bench service's DATA_DIR: a new empty folder, or under BENCH_DATA_TEMPLATE a copy of that folder (a
// migrated embedded database no process holds). PGlite's initdb and the migrations cost about 15 s of CPU
// per folder, more than a smoke run's own work, so test/docs/bench-smoke.test.ts makes one and every
// bench copies it (about 2 s to open). Unused on PostgreSQL, where the folder holds no database.
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Fills `dir` (created when missing) from BENCH_DATA_TEMPLATE when that is set; returns `dir`. */
export function seedDataDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const template = process.env.BENCH_DATA_TEMPLATE;
  if (template) cpSync(template, dir, { recursive: true });
  return dir;
}

/** A new folder under the system's temporary directory, seeded as seedDataDir does. */
export function freshDataDir(prefix: string): string {
  return seedDataDir(mkdtempSync(join(tmpdir(), prefix)));
}
