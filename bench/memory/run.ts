// Memory: resident memory of the service, idle after one text and one code compression, on PostgreSQL
// with 1, 2 and 4 pool threads and on embedded PGlite with 2; then what each part costs (a thread, each
// task group's first load and its first call's latency, PGlite alone). Prints a Markdown table for
// docs/resident-memory.md. `npm run bench:memory` (BENCH_SETTLE_S=60 by default: the "60–90 s after start";
// BENCH_DATABASE_URL names the PostgreSQL server, default the local one).
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import postgres from 'postgres';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? sized(60, 0));
const ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const root = packageRoot();
const mb = (kb: number) => Math.round(kb / 1024);
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

const prose = readFileSync(join(root, 'node_modules/postgres/README.md'), 'utf8');
const code = readFileSync(join(root, 'node_modules/debug/src/common.js'), 'utf8');

/** A database of its own on the PostgreSQL server, dropped after. */
async function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gc_mem_${process.pid}_${Date.now()}`;
  const sql = postgres(ADMIN, { max: 1, onnotice: () => {} });
  await sql.unsafe(`create database ${name}`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    },
  };
}

interface Idle {
  label: string;
  atListenMb: number;
  idleMb: number;
  threads: number;
}

async function idleService(label: string, threads: number, databaseUrl: string): Promise<Idle> {
  // The embedded database lives in DATA_DIR: from BENCH_DATA_TEMPLATE when given.
  const dataDir = databaseUrl ? mkdtempSync(join(tmpdir(), 'gc-mem-')) : freshDataDir('gc-mem-');
  const service = await spawnUntil(
    join(root, 'dist/src/main.js'),
    { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, POOL_THREADS: String(threads) },
    /"msg":"listening".*"port":(\d+)[\s\S]*?(gc_[A-Za-z0-9_]+)/,
  );
  const pid = service.child.pid!;
  const atListen = rssKb(pid);
  const base = `http://127.0.0.1:${service.match[1]}`;
  const headers = { authorization: `Bearer ${service.match[2]}`, 'content-type': 'application/json' };
  for (const [path, body] of [['/v1/compress', { text: prose, fidelity: 'balanced' }], ['/v1/compress-code', { code, fidelity: 'balanced' }]] as const) {
    const res = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  }
  await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
  const idle = rssKb(pid);
  await stop(service.child);
  rmSync(dataDir, { recursive: true, force: true });
  return { label, atListenMb: mb(atListen), idleMb: mb(idle), threads };
}

/** What a part costs in one thread of a fresh process: resident memory before and after, and time taken. */
function partsInAThread(): Promise<{ part: string; mb: number; ms: number }[]> {
  const script = `
    const { parentPort } = require('node:worker_threads');
    const { readFileSync } = require('node:fs');
    const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
    (async () => {
      const root = ${JSON.stringify(root)};
      const out = [];
      const step = async (part, fn) => { const r0 = rss(); const t0 = performance.now(); await fn(); out.push({ part, mb: Math.round((rss() - r0) / 1024), ms: Math.round(performance.now() - t0) }); };
      let run;
      await step('worker entry (task table, text engine)', async () => { run = (await import(root + '/dist/workers/index.js')).default; });
      const call = async (name, input) => { const r = await run({ name, input }); if (!r.ok) throw new Error(name + ': ' + r.error.message); };
      await step('first text compression', () => call('compress', { text: ${JSON.stringify(prose)}, fidelity: 'balanced' }));
      await step('code group + first JavaScript compression (tree-sitter)', () => call('compressCode', { code: ${JSON.stringify(code)}, language: 'javascript', fidelity: 'balanced' }));
      await step('embed group + first embedding (model)', () => call('embed', { texts: ['connection pool settings'] }));
      await step('web group + first page extraction', () => call('webExtract', { html: '<html><body><main><h1>T</h1><p>Some text here.</p></main></body></html>' }));
      await step('docs group + first documentation search (index)', () => call('docsSearch', { query: 'rate limits', k: 3, view: 'snippet' }));
      parentPort.postMessage(out);
    })().catch((e) => parentPort.postMessage({ error: String(e && e.stack || e) }));
  `;
  return new Promise((resolve, reject) => {
    const w = new Worker(script, { eval: true });
    w.once('message', (m) => (m.error ? reject(new Error(m.error)) : resolve(m)));
    w.once('error', reject);
  });
}

const rows: Idle[] = [];
for (const threads of [1, 2, 4]) {
  const db = await scratchDatabase();
  try {
    rows.push(await idleService(`PostgreSQL, ${threads} pool thread${threads > 1 ? 's' : ''}`, threads, db.url));
  } finally {
    await db.drop();
  }
}
rows.push(await idleService('embedded PGlite, 2 pool threads', 2, ''));

console.log(`\nResident memory, idle ${SETTLE_S} s after one text and one code compression (${new Date().toISOString()}, Node ${process.version})\n`);
console.log('| configuration | at listen | idle |');
console.log('|---|---:|---:|');
for (const r of rows) console.log(`| ${r.label} | ${r.atListenMb} MB | ${r.idleMb} MB |`);
const pg = rows.filter((r) => r.label.startsWith('PostgreSQL'));
const perThread = (pg[2]!.idleMb - pg[0]!.idleMb) / (pg[2]!.threads - pg[0]!.threads);
console.log(`\nPer further pool thread (PostgreSQL, 1 → 4 threads): ${perThread.toFixed(0)} MB; base (PostgreSQL, 0 threads by extrapolation): ${(pg[0]!.idleMb - perThread).toFixed(0)} MB;`);
console.log(`PGlite over PostgreSQL at 2 threads: ${rows[3]!.idleMb - pg[1]!.idleMb} MB.`);

const base = rssKb(process.pid);
const parts = await partsInAThread();
console.log(`\nWhat each part adds in one thread (this process: ${mb(base)} MB before; a first call's time includes loading its group):\n`);
console.log('| part | resident memory added | time |');
console.log('|---|---:|---:|');
for (const p of parts) console.log(`| ${p.part} | ${p.mb} MB | ${p.ms} ms |`);
