// A restart on the same database rebuilds the repository index from the stored analyses: the new
// process answers at once and parses nothing (its pool never sees a file).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createProject } from '../../src/domain/identity/projects.js';
import { createUser } from '../../src/domain/identity/users.js';
import { createLogger } from '../../src/lib/log.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, freshDatabase } from '../helpers/server.js';
import { REPO } from './fixtures.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function database(): Promise<{ databaseUrl: string | null; dataDir: string }> {
  const db = await freshDatabase();
  if (db.databaseUrl) {
    cleanups.push(() => db.drop());
    return { databaseUrl: db.databaseUrl, dataDir: 'memory://' };
  }
  const dir = mkdtempSync(join(tmpdir(), 'gc-codeintel-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { databaseUrl: null, dataDir: dir };
}

const start = (db: { databaseUrl: string | null; dataDir: string }): Promise<RunningApp> =>
  startApp(loadConfig({}, { host: '127.0.0.1', port: 0, poolThreads: 1, shutdownGraceMs: 2000, ...db }), createLogger(false));

describe(`code index across a process restart (${DB_KIND})`, () => {
  it('the restarted service answers from the stored index without parsing', async () => {
    const db = await database();
    const first = await start(db);
    let key: string;
    try {
      const user = await createUser(first.services.db, { plan: 'pro', name: 'restart' });
      const project = await createProject(first.services.db, user.id, { name: 'repo' });
      key = (await createApiKey(first.services.db, { userId: user.id, plan: 'pro', name: 'k', projectId: project.id })).key;
      const c = await connectMcp(`http://127.0.0.1:${first.port}`, key);
      const r = await call(c, 'gc_orient', { files: Object.entries(REPO).map(([path, content]) => ({ path, content })) });
      expect(r.isError, JSON.stringify(r.data)).toBe(false);
      expect(first.services.codeIntel.counters.filesParsed).toBe(Object.keys(REPO).length);
      await c.close();
    } finally {
      await first.close();
    }

    const second = await start(db);
    try {
      const c = await connectMcp(`http://127.0.0.1:${second.port}`, key!);
      const callers = await call(c, 'gc_callers', { symbol: 'formatName' });
      expect(callers.data.references.map((x: { qualified: string }) => x.qualified).sort()).toEqual(['Greeter.greet', 'run']);
      const blast = await call(c, 'gc_blast_radius', { focus_symbol: 'Store.save' });
      expect(blast.data.dependents.map((d: { name: string }) => d.name)).toEqual(['handle', 'endpoint']);
      expect(second.services.codeIntel.counters).toMatchObject({ filesParsed: 0, reloads: 1, filesReloaded: Object.keys(REPO).length });
      // Sending the same files again parses nothing either: their hashes are stored.
      const again = await call(c, 'gc_orient', { files: Object.entries(REPO).map(([path, content]) => ({ path, content })) });
      expect(again.data.index).toMatchObject({ unchanged: Object.keys(REPO).length, indexed: [] });
      expect(second.services.codeIntel.counters.filesParsed).toBe(0);
      await c.close();
    } finally {
      await second.close();
    }
    // Two starts on a data folder made here: on PGlite the first creates and migrates a cluster (tens of
    // seconds of CPU on a busy 2-core machine). A guard against a stuck test, not a speed claim.
  }, 180_000);
});
