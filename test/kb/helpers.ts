import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createProject } from '../../src/domain/identity/projects.js';
import { createUser } from '../../src/domain/identity/users.js';
import type { Plan } from '../../src/auth/plans.js';
import type { TestServer } from '../helpers/server.js';

/** A user with a project and two keys bound to it, plus one unbound key. */
export async function makeTenant(server: TestServer, plan: Plan = 'pro', userId?: string) {
  const db = server.app.services.db;
  const uid = userId ?? (await createUser(db, { plan, name: `kb-${plan}` })).id;
  const project = await createProject(db, uid, { name: 'kb project' });
  const a = await createApiKey(db, { userId: uid, plan, name: 'a', projectId: project.id });
  const b = await createApiKey(db, { userId: uid, plan, name: 'b', projectId: project.id });
  const unbound = await createApiKey(db, { userId: uid, plan, name: 'unbound' });
  return { userId: uid, projectId: project.id, keyA: a.key, keyAId: a.row.key_id, keyB: b.key, unbound: unbound.key };
}

/** Waits until every queued ingest of the app has finished. */
export async function settle(server: TestServer): Promise<void> {
  await server.app.services.knowledge.idle();
}

export const DOCS = {
  postgres: `# PostgreSQL tuning

## Connection pooling

Use a connection pool such as PgBouncer in transaction mode when hundreds of clients connect. Each PostgreSQL backend is a process, so idle connections still cost memory. Set max_connections conservatively and let the pool queue requests.

## Vacuum

Autovacuum removes dead tuples left by updates and deletes. Tables with heavy churn need a lower autovacuum_vacuum_scale_factor. A long-running transaction prevents vacuum from reclaiming rows and causes table bloat.

## Indexes

A B-tree index speeds up equality and range lookups. GIN indexes serve jsonb containment and full-text search. Partial indexes keep small indexes for hot subsets of rows.`,
  gardening: `# Growing tomatoes

## Soil

Tomatoes want loose, well-drained soil rich in compost, with a pH between 6.2 and 6.8. Work aged manure into the bed two weeks before planting seedlings.

## Watering

Water deeply at the base twice a week rather than a little every day. Irregular watering causes blossom end rot and split fruit. Mulch keeps the soil moisture even during hot summer weeks.

## Pruning

Remove suckers that grow between the main stem and the branches of indeterminate varieties. Stake or cage the plants early so the fruit stays off the ground.`,
  rockets: `# Rocket propulsion basics

Liquid rocket engines burn a fuel and an oxidizer in a combustion chamber. The hot exhaust accelerates through a converging-diverging nozzle to supersonic speed. Specific impulse measures how efficiently an engine turns propellant into thrust. Kerosene with liquid oxygen gives about 350 seconds in vacuum, while liquid hydrogen reaches about 450 seconds.`,
};
