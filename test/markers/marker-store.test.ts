// The marker store's write queue after a failed flush: one refused write (database briefly down) must
// not stop every later layout from being stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackgroundTasks } from '../../src/lib/background.js';
import { createLogger } from '../../src/lib/log.js';
import { loadLayouts, rememberMarkers } from '../../src/domain/compression/markerStore.js';
import { markerRef, textHashOf } from '../../workers/text/markers.js';
import { openStore, type Db } from '../../src/store/index.js';
import { freshDatabase } from '../helpers/server.js';

let db: Db;
let failNext = false;
let services: { db: Db; background: BackgroundTasks };
let userId: string;

let database: Awaited<ReturnType<typeof freshDatabase>>;

beforeAll(async () => {
  // A database of its own: migrating the server's admin database (DATABASE_URL) left 74 tables there
  // for every later test that connects to it directly.
  database = await freshDatabase();
  db = await openStore({ databaseUrl: database.databaseUrl, dataDir: 'memory://', pgliteThread: false });
  // The database refuses one statement when asked to (a dropped connection, a failover).
  const query: Db['query'] = (sql, params) => {
    if (failNext) {
      failNext = false;
      return Promise.reject(new Error('connection lost'));
    }
    return db.query(sql, params);
  };
  services = { db: { ...db, query }, background: new BackgroundTasks(createLogger(false)) };
  const [user] = await db.query<{ id: string }>('insert into users (name) values ($1) returning id', ['marker-store-test']);
  userId = user!.id;
});
afterAll(async () => {
  await db?.query('delete from users where id = $1', [userId]).catch(() => undefined);
  await db?.close();
  await database?.drop();
});

/** The queue flushes on the next turn of the event loop; then the background writes end. */
const flushed = async () => {
  await new Promise((r) => setImmediate(r));
  await services.background.drain();
};

const layoutOf = (text: string) => {
  const textHash = textHashOf(text);
  const spans = [0, 5];
  return { ref: markerRef(textHash, spans), textHash, spans };
};

describe('marker store after a failed flush', () => {
  it('stores what is queued after the failure', async () => {
    const first = layoutOf('first text, lost with the failed flush');
    failNext = true;
    rememberMarkers(services, userId, 'first text, lost with the failed flush', first);
    await flushed();
    expect(failNext).toBe(false);
    const second = layoutOf('second text, written once the database answers');
    rememberMarkers(services, userId, 'second text, written once the database answers', second);
    await flushed();
    const found = await loadLayouts(services, userId, [second.ref]);
    expect(found.get(second.ref)?.content).toBe('second text, written once the database answers');
  });
});
