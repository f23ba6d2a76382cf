// postgres.js 3.4.x defects around a backend that goes away, fixed at install by
// scripts/patches/apply.mjs (docs/dependencies.md): writes to the dead socket threw uncaught
// (porsager/postgres#1208), and a transaction whose connection closed ran its later queries on the
// reconnected socket, outside any transaction, where the pool's next query could receive their rows
// (porsager/postgres#1216). This runs the reproduction in a child process against the real server.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, freshDatabase } from '../helpers/server.js';

const repro = `
import postgres from 'postgres';
process.on('uncaughtException', (e) => { console.log('uncaught: ' + e.message); process.exit(3); });
const url = process.env.REPRO_DATABASE_URL;
const sql = postgres(url, { max: 1, onnotice() {} });
const admin = postgres(url, { max: 1, onnotice() {} });
const code = (e) => e.code ?? e.message;
const pause = (ms = 20) => new Promise((r) => setTimeout(r, ms));

// A reserved connection whose backend is terminated: each later write used to throw uncaught.
const reserved = await sql.reserve();
const [{ pid }] = await reserved\`select pg_backend_pid() as pid\`;
await admin\`select pg_terminate_backend(\${pid})\`;
const onReserved = [];
for (let i = 0; i < 3; i++) {
  try { await reserved\`select 1\`; onReserved.push('ok'); } catch (e) { onReserved.push(code(e)); }
  await pause();
}

// A transaction (what the service uses) whose backend is terminated while its callback waits. The
// callback's later insert must not run anywhere, and the same pool's next queries get their own rows.
await admin\`create table repro_rows (n int)\`;
const pool = postgres(url, { max: 1, onnotice() {} });
let transaction = 'committed';
let lateInsert = 'not run';
try {
  await pool.begin(async (tx) => {
    const [{ pid }] = await tx\`select pg_backend_pid() as pid\`;
    await admin\`select pg_terminate_backend(\${pid})\`;
    await pause();
    try { await tx\`insert into repro_rows values (1)\`; lateInsert = 'ran'; } catch (e) { lateInsert = code(e); throw e; }
  });
} catch (e) { transaction = code(e); }
const after = [];
for (let i = 0; i < 3; i++) {
  try { after.push((await pool\`select \${i}::int as one\`).map((r) => r.one)); } catch (e) { after.push(code(e)); await pause(); }
}
await pause(100);
const [{ count }] = await admin\`select count(*)::int as count from repro_rows\`;
console.log(JSON.stringify({ onReserved, transaction, lateInsert, after, insertedRows: count }));
process.exit(0);
`;

// The PostgreSQL pass runs it (the PGlite pass has no server URL of its own).
describe.runIf(DB_KIND === 'postgres')('postgres.js with a backend that went away', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => { db = await freshDatabase(); });
  afterAll(async () => { await db?.drop(); });

  it('rejects the queries on a dead connection instead of crashing; a transaction that lost its connection runs nothing more, and its pool answers each query with its own rows', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', repro], {
      encoding: 'utf8', timeout: 30_000, env: { ...process.env, REPRO_DATABASE_URL: db.databaseUrl! },
    });
    expect(run.stdout, run.stderr).not.toContain('uncaught');
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      onReserved: string[]; transaction: string; lateInsert: string; after: unknown[]; insertedRows: number;
    };
    expect(result.onReserved).toHaveLength(3);
    expect(result.onReserved).not.toContain('ok');
    expect(result.transaction).toBe('CONNECTION_CLOSED');
    expect(result.lateInsert).toBe('CONNECTION_CLOSED');
    expect(result.insertedRows).toBe(0);
    expect(result.after).toEqual([[0], [1], [2]]);
  });
});
