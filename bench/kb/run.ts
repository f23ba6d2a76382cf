// Knowledge Hub benchmark: ingest the text engine's corpus plus generated documents up to
// BENCH_KB_CHUNKS chunks (default 100,000) in one project over HTTP, then measure
//  - ingest throughput (chunks/s, from the first POST until no item is pending/indexing),
//  - query latency over HTTP (p50/p99, sequential and 4 concurrent clients),
//  - recall@10 of the served HNSW index (loaded from its snapshot) against exact brute force,
//  - restart-to-serving time from the snapshot (and, for contrast, rebuilt from PostgreSQL).
// Uses PostgreSQL when DATABASE_URL is set (a fresh database, dropped afterwards), else PGlite on disk.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import { packageRoot } from '../../src/lib/root.js';
import { getEmbedder } from '../../workers/embed/index.js';
import { HNSW_EF_SEARCH, ProjectIndex } from '../../workers/kb/projectIndex.js';
import { splitSentences } from '../../workers/text/sentences.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { pydocTopics } from '../quality/corpus.js';
import { sized } from '../lib/smoke.js';

const TARGET = Number(process.env.BENCH_KB_CHUNKS ?? sized(100_000, 50));
const QUERIES = Number(process.env.BENCH_KB_QUERIES ?? sized(1000, 2));
/** Warm-up queries before the measured ones. */
const WARM_QUERIES = sized(50, 1);
const RECALL_QUERIES = Number(process.env.BENCH_KB_RECALL_QUERIES ?? sized(200, 2));
const SECTIONS_PER_DOC = 50;
const POST_CONCURRENCY = 4;
const root = packageRoot();

// ---- corpus -----------------------------------------------------------------------------------

const READMES = ['piscina', 'postgres', 'repomix', 'autocannon', 'tinybench', '@modelcontextprotocol/sdk', 'typescript', 'zod'];
function realCorpus(): { name: string; text: string }[] {
  const docs: { name: string; text: string }[] = [];
  for (const p of READMES) {
    try {
      docs.push({ name: `README ${p}`, text: readFileSync(resolve(root, 'node_modules', p, 'README.md'), 'utf8') });
    } catch {
      /* package without README */
    }
  }
  const topics = pydocTopics('all');
  for (const k of Object.keys(topics).sort()) docs.push({ name: `pydoc ${k}`, text: topics[k]! });
  return docs.slice(0, sized(Infinity, 2));
}

let seed = 12345;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;

/** Generated documents: sections of consecutive real sentences (topical), lightly mutated. */
function generator(corpus: { text: string }[]) {
  const sentenceDocs = corpus
    .map((d) => splitSentences(d.text).map((s) => d.text.slice(s.start, s.end).replace(/\s+/g, ' ')).filter((s) => s.length >= 40 && s.length <= 300))
    .filter((s) => s.length >= 12);
  const words = [...new Set(corpus.flatMap((d) => d.text.match(/[A-Za-z]{5,12}/g) ?? []))];
  const mutate = (s: string) => s.replace(/[A-Za-z]{5,12}/g, (w) => (rnd() < 0.12 ? pick(words) : w));
  let n = 0;
  return () => {
    n++;
    const parts = [`# Generated document ${n}: ${pick(words)} ${pick(words)}`];
    for (let i = 0; i < SECTIONS_PER_DOC; i++) {
      const src = pick(sentenceDocs);
      const len = 8 + Math.floor(rnd() * 5);
      const start = Math.floor(rnd() * Math.max(1, src.length - len));
      const ss = src.slice(start, start + len).map(mutate);
      const cut = Math.ceil(ss.length / 2);
      parts.push(`## ${n}.${i} ${pick(words)} ${pick(words)} ${pick(words)}`, ss.slice(0, cut).join(' '), ss.slice(cut).join(' '));
    }
    return { name: `generated ${n}`, text: parts.join('\n\n') };
  };
}

function queryTexts(corpus: { text: string }[], n: number): string[] {
  const out: string[] = [];
  while (out.length < n) {
    const d = pick(corpus).text;
    const ws = d.match(/[A-Za-z][A-Za-z_-]{2,}/g) ?? [];
    if (ws.length < 20) continue;
    const at = Math.floor(rnd() * (ws.length - 8));
    out.push(ws.slice(at, at + 3 + Math.floor(rnd() * 5)).join(' '));
  }
  return out;
}

// ---- helpers ----------------------------------------------------------------------------------

async function mapLimit<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (i < items.length) await fn(items[i++]!);
  }));
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function api(base: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

// ---- setup ------------------------------------------------------------------------------------

const dataDir = mkdtempSync(join(tmpdir(), 'gc-kb-bench-'));
const adminUrl = process.env.DATABASE_URL || '';
let databaseUrl = '';
let dropDb = async () => {};
if (adminUrl) {
  const name = `gc_kb_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  databaseUrl = u.toString();
  dropDb = async () => {
    const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await a.unsafe(`drop database if exists ${name} with (force)`);
    await a.end();
  };
}
const env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, BOOTSTRAP_OWNER: 'true' };
const serverScript = join(root, 'dist/bench/kb/server.js');
const READY = /kb-bench-listening port=(\d+) key=(\S+)/;

const report: string[] = [];
const log = (s: string) => {
  console.log(s);
  report.push(s);
};

let server = await spawnUntil(serverScript, env, READY, 120_000);
let base = `http://127.0.0.1:${server.match[1]}`;
const key = server.match[2]!;
const project = (await api(base, key, 'POST', '/v1/projects', { name: 'kb bench' })).json.project_id as string;
const kb = `/v1/projects/${project}/knowledge`;
const sql = databaseUrl ? postgres(databaseUrl, { max: 2, onnotice: () => {} }) : null;

async function counts(): Promise<{ chunks: number; busy: number; failed: number; items: number }> {
  if (sql) {
    const [r] = await sql.unsafe(
      `select (select count(*)::int from kb_chunks) as chunks,
              (select count(*)::int from kb_items where status in ('pending','indexing')) as busy,
              (select count(*)::int from kb_items where status = 'FAILED') as failed,
              (select count(*)::int from kb_items) as items`,
    );
    return r as unknown as { chunks: number; busy: number; failed: number; items: number };
  }
  const busy = (await api(base, key, 'GET', `${kb}/items?limit=1&status=pending`)).json.total + (await api(base, key, 'GET', `${kb}/items?limit=1&status=indexing`)).json.total;
  const failed = (await api(base, key, 'GET', `${kb}/items?limit=1&status=FAILED`)).json.total;
  const all = await api(base, key, 'GET', `${kb}/items?limit=200`);
  let chunks = 0;
  let cursor: string | null = null;
  let items = 0;
  let page = all.json;
  for (;;) {
    for (const it of page.items) chunks += it.chunk_count;
    items += page.items.length;
    cursor = page.next_cursor;
    if (!cursor) break;
    page = (await api(base, key, 'GET', `${kb}/items?limit=200&cursor=${encodeURIComponent(cursor)}`)).json;
  }
  return { chunks, busy, failed, items };
}

try {
  log(`# Knowledge Hub bench (${new Date().toISOString()})`);
  log(`machine: ${availableParallelism()} cores, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}; database ${databaseUrl ? 'PostgreSQL' : 'PGlite (disk)'}; target ${TARGET} chunks`);

  // ---- ingest ---------------------------------------------------------------------------------
  const corpus = realCorpus();
  const gen = generator(corpus);
  const t0 = performance.now();
  let posted = 0;
  const post = async (d: { name: string; text: string }) => {
    const r = await api(base, key, 'POST', `${kb}/items`, { name: d.name, text: d.text, metadata: { source: d.name.split(' ')[0] } });
    if (r.status !== 201) throw new Error(`ingest ${r.status} ${JSON.stringify(r.json)}`);
    posted++;
  };
  await mapLimit(corpus, POST_CONCURRENCY, post);
  let last = performance.now();
  for (;;) {
    const c = await counts();
    if (performance.now() - last > 15_000) {
      console.log(`  … ${c.chunks} chunks indexed, ${c.busy} items queued, ${posted} posted, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      last = performance.now();
    }
    // Keep about 40 documents queued ahead of the indexer until the target is in sight.
    const projected = c.chunks + c.busy * SECTIONS_PER_DOC;
    if (projected < TARGET && c.busy < 40) {
      const need = Math.min(40 - c.busy, Math.ceil((TARGET - projected) / SECTIONS_PER_DOC));
      await mapLimit(Array.from({ length: need }, gen), POST_CONCURRENCY, post);
      continue;
    }
    if (c.busy === 0 && c.chunks >= TARGET) break;
    if (c.busy === 0 && projected < TARGET) continue;
    await new Promise((r) => setTimeout(r, 500));
  }
  const ingestS = (performance.now() - t0) / 1000;
  const c = await counts();
  log(`\n## Ingest\n`);
  log(`| items | chunks | FAILED items | wall time s | chunks/s |`);
  log(`|---:|---:|---:|---:|---:|`);
  log(`| ${c.items} | ${c.chunks} | ${c.failed} | ${ingestS.toFixed(1)} | ${(c.chunks / ingestS).toFixed(0)} |`);

  // ---- query latency over HTTP ----------------------------------------------------------------
  const qs = queryTexts(corpus, QUERIES + WARM_QUERIES);
  for (const q of qs.slice(0, WARM_QUERIES)) await api(base, key, 'POST', `${kb}/query`, { query: q, limit: 10 });
  const seq: number[] = [];
  let empty = 0;
  for (const q of qs.slice(WARM_QUERIES)) {
    const s = performance.now();
    const r = await api(base, key, 'POST', `${kb}/query`, { query: q, limit: 10 });
    seq.push(performance.now() - s);
    if (r.status !== 200) throw new Error(`query ${r.status}`);
    if (r.json.results.length === 0) empty++;
  }
  const conc: number[] = [];
  const tc = performance.now();
  await mapLimit(qs.slice(WARM_QUERIES), 4, async (q) => {
    const s = performance.now();
    await api(base, key, 'POST', `${kb}/query`, { query: q, limit: 10 });
    conc.push(performance.now() - s);
  });
  const concS = (performance.now() - tc) / 1000;
  log(`\n## Query latency over HTTP (POST ${kb.replace(project, '{project}')}/query, limit 10, ${c.chunks} chunks)\n`);
  log(`| clients | queries | p50 ms | p99 ms | max ms | queries/s | empty results |`);
  log(`|---:|---:|---:|---:|---:|---:|---:|`);
  log(`| 1 | ${seq.length} | ${pct(seq, 50).toFixed(2)} | ${pct(seq, 99).toFixed(2)} | ${Math.max(...seq).toFixed(2)} | ${(seq.length / (seq.reduce((a, b) => a + b, 0) / 1000)).toFixed(0)} | ${empty} |`);
  log(`| 4 | ${conc.length} | ${pct(conc, 50).toFixed(2)} | ${pct(conc, 99).toFixed(2)} | ${Math.max(...conc).toFixed(2)} | ${(conc.length / concS).toFixed(0)} | |`);
  // The platform floor in the same conditions: an authenticated one-row read over the same HTTP path.
  const floor: number[] = [];
  for (let i = 0; i < seq.length; i++) {
    const s = performance.now();
    await api(base, key, 'GET', `/v1/projects/${project}/knowledge/items?limit=1`);
    floor.push(performance.now() - s);
  }
  log(`| 1 (floor: GET …/items?limit=1) | ${floor.length} | ${pct(floor, 50).toFixed(2)} | ${pct(floor, 99).toFixed(2)} | ${Math.max(...floor).toFixed(2)} | | |`);
  log(`\nload average during the run: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);

  // ---- stop (writes the snapshot), restart from it ---------------------------------------------
  let ts = performance.now();
  await stop(server.child);
  const stopMs = performance.now() - ts;
  const probe = qs[Math.min(60, qs.length - 1)]!;
  async function restart(label: string): Promise<number> {
    const t = performance.now();
    server = await spawnUntil(serverScript, env, READY, 300_000);
    base = `http://127.0.0.1:${server.match[1]}`;
    for (;;) {
      const r = await api(base, key, 'POST', `${kb}/query`, { query: probe, limit: 10 }).catch(() => null);
      if (r && r.status === 200 && r.json.results.length > 0) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    const ms = performance.now() - t;
    log(`| ${label} | ${(ms / 1000).toFixed(2)} |`);
    return ms;
  }
  log(`\n## Restart to serving (process spawn → first query answered with results; shutdown incl. snapshot write took ${(stopMs / 1000).toFixed(2)} s)\n`);
  log(`| start | seconds |`);
  log(`|---|---:|`);
  await restart('from the DATA_DIR snapshot');

  // ---- recall@10 of the served index against brute force ---------------------------------------
  await stop(server.child);
  const idx = ProjectIndex.load(join(dataDir, 'kb-index'), project);
  if (!idx) throw new Error('no snapshot');
  const embedder = await getEmbedder();
  const qv = await embedder.embed(queryTexts(corpus, RECALL_QUERIES));
  const live = sql
    ? ((await sql.unsafe(
        `select c.label, c.embedding from kb_chunks c join kb_items i on i.id = c.item_id
          where c.project_id = $1 and c.version_id = i.current_version_id and i.deleted_at is null order by c.label`,
        [project],
      )) as unknown as { label: number; embedding: Uint8Array }[])
    : null;
  let labels: number[];
  let matrix: Float32Array;
  const dims = embedder.dims;
  if (live) {
    labels = live.map((r) => r.label);
    matrix = new Float32Array(live.length * dims);
    live.forEach((r, i) => new Uint8Array(matrix.buffer, i * dims * 4, dims * 4).set(r.embedding.subarray(0, dims * 4)));
  } else {
    throw new Error('recall needs DATABASE_URL (PostgreSQL) to read the persisted embeddings');
  }
  const norms = new Float32Array(labels.length);
  for (let i = 0; i < labels.length; i++) {
    let s = 0;
    for (let d = 0; d < dims; d++) s += matrix[i * dims + d]! ** 2;
    norms[i] = Math.sqrt(s) || 1;
  }
  const tb = performance.now();
  const exact = qv.map((q) => {
    const scores = new Float32Array(labels.length);
    for (let i = 0; i < labels.length; i++) {
      let s = 0;
      const o = i * dims;
      for (let d = 0; d < dims; d++) s += q[d]! * matrix[o + d]!;
      scores[i] = s / norms[i]!;
    }
    const top: number[] = [];
    const order = Array.from(scores.keys()).sort((a, b) => scores[b]! - scores[a]!);
    for (let i = 0; i < 10 && i < order.length; i++) top.push(labels[order[i]!]!);
    return top;
  });
  const bruteMs = (performance.now() - tb) / qv.length;
  log(`\n## recall@10, HNSW (M=16, efConstruction=200, snapshot as served) vs exact brute force, ${RECALL_QUERIES} queries over ${labels.length} vectors (${dims} dims)\n`);
  log(`| ef | recall@10 | ms/query (in-process) |`);
  log(`|---:|---:|---:|`);
  for (const ef of [...new Set([32, 64, 128, 256, HNSW_EF_SEARCH, 512])].sort((x, y) => x - y)) {
    let hit = 0;
    const th = performance.now();
    qv.forEach((q, i) => {
      const got = new Set(idx.searchVector(q, 10, ef).labels);
      for (const l of exact[i]!) if (got.has(l)) hit++;
    });
    const ms = (performance.now() - th) / qv.length;
    log(`| ${ef}${ef === HNSW_EF_SEARCH ? ' (served)' : ''} | ${(hit / (qv.length * 10)).toFixed(4)} | ${ms.toFixed(3)} |`);
  }
  log(`| brute force | 1.0000 | ${bruteMs.toFixed(1)} |`);

  // ---- restart without a snapshot (rebuild from PostgreSQL), for contrast ------------------------
  if (process.env.BENCH_KB_SKIP_REBUILD !== 'true') {
    rmSync(join(dataDir, 'kb-index'), { recursive: true, force: true });
    log(`\n| start | seconds |`);
    log(`|---|---:|`);
    await restart('without a snapshot (index rebuilt from the persisted embeddings)');
    ts = performance.now();
    await stop(server.child);
  }
} finally {
  await stop(server.child).catch(() => undefined);
  await sql?.end();
  await dropDb().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
}
