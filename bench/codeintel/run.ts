// Scale of the repository index on the Python standard library, through the running service:
// index it with gc_orient over MCP, re-index one changed file, gc_refs / gc_callers latency, and
// gc_defs against Python's own ast module.
//
//   npm run build && node dist/bench/codeintel/run.js     (DATABASE_URL for PostgreSQL, else PGlite in memory;
//   POOL_THREADS default 2; BENCH_QUERIES default 1000)
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createProject } from '../../src/domain/identity/projects.js';
import { createUser } from '../../src/domain/identity/users.js';
import { createLogger } from '../../src/lib/log.js';

const QUERIES = Number(process.env.BENCH_QUERIES ?? sized(1000, 2));
/** Smoke: the json package alone (it holds the re-indexed file and the rendered symbols). */
const SMOKE_DIR = 'json';
/** Re-indexings of the changed file, floor calls, gc_defs calls through the tool. */
const EDITS = sized(10, 1);
const FLOOR_CALLS = sized(200, 2);
const TOOL_SAMPLE = sized(200, 2);
const stdlib = execFileSync('python3', ['-c', "import sysconfig;print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim();

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name === 'site-packages' || name === '__pycache__') continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else if (name.endsWith('.py')) out.push(p);
  }
}
const paths: string[] = [];
walk(SMOKE ? join(stdlib, SMOKE_DIR) : stdlib, paths);
paths.sort();
const files = paths.map((p) => ({ path: relative(stdlib, p), content: readFileSync(p, 'utf8') }));
const chars = files.reduce((s, f) => s + f.content.length, 0);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

async function main() {
  const databaseUrl = process.env.DATABASE_URL || null;
  let dbUrl = databaseUrl;
  let drop: (() => Promise<void>) | null = null;
  if (databaseUrl) {
    const { default: postgres } = await import('postgres');
    const name = `gc_bench_ci_${Date.now()}`;
    const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const u = new URL(databaseUrl);
    u.pathname = `/${name}`;
    dbUrl = u.toString();
    drop = async () => {
      const s = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      await s.unsafe(`drop database if exists ${name} with (force)`);
      await s.end();
    };
  }
  const threads = Number(process.env.POOL_THREADS ?? 2);
  // PGlite in memory, or on a copy of BENCH_DATA_TEMPLATE when given (no initdb and migrations to pay).
  const dataDir = !dbUrl && process.env.BENCH_DATA_TEMPLATE ? freshDataDir('gc-bench-ci-') : 'memory://';
  const app = await startApp(loadConfig({}, { host: '127.0.0.1', port: 0, poolThreads: threads, databaseUrl: dbUrl, dataDir, bootstrapOwner: false }), createLogger(false));
  try {
    const user = await createUser(app.services.db, { plan: 'enterprise', name: 'bench' });
    const project = await createProject(app.services.db, user.id, { name: 'stdlib' });
    const key = (await createApiKey(app.services.db, { userId: user.id, plan: 'enterprise', name: 'bench', projectId: project.id })).key;
    const client = new Client({ name: 'bench-codeintel', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${app.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      const data = (r.structuredContent ?? JSON.parse((r.content as { text: string }[])[0]!.text)) as any;
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(data).slice(0, 500)}`);
      return data;
    };

    // 1. Index the whole standard library (batches under the MCP body limit).
    const load = execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).trim();
    const started = performance.now();
    let batch: typeof files = [];
    let size = 0;
    let skipped = 0;
    const batches: (typeof files)[] = [];
    for (const f of files) {
      if (size + f.content.length > 7_000_000 || batch.length >= 2000) {
        batches.push(batch);
        batch = [];
        size = 0;
      }
      batch.push(f);
      size += f.content.length;
    }
    if (batch.length) batches.push(batch);
    let last: any = null;
    const perBatch: string[] = [];
    for (const b of batches) {
      const t = performance.now();
      last = await call('gc_orient', { files: b, top: 5 });
      skipped += last.index.skipped.length;
      perBatch.push(`${b.length} files: ${((performance.now() - t) / 1000).toFixed(2)} s (parse ${last.index.timings_ms.parse} ms, graph ${last.index.update.graph_ms} ms, ${last.index.update.mode})`);
    }
    const indexSeconds = (performance.now() - started) / 1000;

    // 2. Re-index one changed file (a function appended to a central module), ten times.
    const target = files.find((f) => f.path === 'json/decoder.py') ?? files[0]!;
    const reindex: number[] = [];
    const graphMs: number[] = [];
    const parseMs: number[] = [];
    const ingestMs: number[] = [];
    for (let i = 0; i < EDITS; i++) {
      const content = `${target.content}\n\ndef _bench_added_${i}(s):\n    return JSONDecoder().decode(s)\n`;
      const t = performance.now();
      const r = await call('gc_orient', { files: [{ path: target.path, content }], top: 1 });
      reindex.push(performance.now() - t);
      graphMs.push(r.index.update.graph_ms);
      parseMs.push(r.index.timings_ms.parse);
      ingestMs.push(r.index.timings_ms.total);
    }

    // 3. gc_refs / gc_callers latency over MCP, symbols sampled from the index.
    const graph: any = await app.services.codeIntel.ask(project.id, 'graph', [{ path_prefix: null, max_nodes: 1_000_000 }]);
    const nodes: { id: string; name: string; path: string; start_line: number; kind: string }[] = graph.nodes;
    const fns = nodes.filter((n) => n.kind === 'function' || n.kind === 'method');
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const refsMs: number[] = [];
    const callersMs: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const n = fns[Math.floor(rnd() * fns.length)]!;
      const symbol = `${n.path}:${n.name}`;
      let t = performance.now();
      await call('gc_refs', { symbol });
      refsMs.push(performance.now() - t);
      t = performance.now();
      await call('gc_callers', { symbol });
      callersMs.push(performance.now() - t);
    }
    // Floor: the cheapest tool call on the same session (auth, MCP, usage event), no index work.
    const floorMs: number[] = [];
    for (let i = 0; i < FLOOR_CALLS; i++) {
      const t = performance.now();
      await call('estimate_tokens', { text: 'x' });
      floorMs.push(performance.now() - t);
    }

    // 4. gc_defs against Python's ast: every def/class at module or class level, by qualified name and line.
    const astOut = join(tmpdir(), `gc-ast-${process.pid}.json`);
    writeFileSync(`${astOut}.py`, PY_AST);
    execFileSync('python3', [`${astOut}.py`, stdlib, astOut, SMOKE ? SMOKE_DIR : '']);
    const astDefs: { path: string; qualname: string; lines: number[] }[] = JSON.parse(readFileSync(astOut, 'utf8'));
    const ours = new Map<string, number[]>();
    for (const n of nodes) {
      const k = `${n.path}:${n.name}`;
      const list = ours.get(k) ?? [];
      list.push(n.start_line);
      ours.set(k, list);
    }
    const astKeys = new Set<string>();
    let hit = 0;
    const misses: string[] = [];
    for (const d of astDefs) {
      const k = `${d.path}:${d.qualname}`;
      for (const l of d.lines) astKeys.add(`${k}:${l}`);
      if ((ours.get(k) ?? []).some((l) => d.lines.includes(l))) hit++;
      else if (misses.length < 10) misses.push(`${k}@${d.lines.join('/')}`);
    }
    let ourTrue = 0;
    const extras: string[] = [];
    const indexedPaths = new Set(nodes.map((n) => n.path));
    const astPaths = new Set(astDefs.map((d) => d.path));
    let ourCounted = 0;
    for (const n of nodes) {
      if (!astPaths.has(n.path)) continue; // files ast could not parse (Python 2 syntax in lib2to3 tests)
      ourCounted++;
      if (astKeys.has(`${n.path}:${n.name}:${n.start_line}`)) ourTrue++;
      else if (extras.length < 10) extras.push(`${n.path}:${n.name}@${n.start_line}`);
    }
    // A sample through the tool itself.
    let toolHits = 0;
    const toolSample = TOOL_SAMPLE;
    for (let i = 0; i < toolSample; i++) {
      const d = astDefs[Math.floor(rnd() * astDefs.length)]!;
      const r = await call('gc_defs', { symbol: `${d.path}:${d.qualname}` });
      if (r.definitions.some((x: { path: string; start_line: number }) => x.path === d.path && d.lines.includes(x.start_line))) toolHits++;
    }

    // 5. The other tools at this scale: one call each (gc_scan twice: the first scans every file, the second reads the per-file cache).
    const timed = async (name: string, args: Record<string, unknown>) => {
      const t = performance.now();
      const data = await call(name, args);
      return { ms: performance.now() - t, data };
    };
    const scan1 = await timed('gc_scan', { limit: 5000 });
    const scan2 = await timed('gc_scan', { limit: 5000 });
    const plan = await timed('gc_edit_plan', { request: 'make the JSON decoder accept trailing commas in objects and arrays' });
    const capsule = await timed('gc_agent_capsule', { token_budget: 1000 });
    const render = await timed('gc_context_render', { symbols: ['json/decoder.py:JSONObject', 'json/decoder.py:JSONArray'], files: ['json/__init__.py'], token_budget: 4000, include_dependencies: true });
    const graphml = await timed('export_graph_graphml', { max_nodes: 20_000 });
    const html = await timed('visualize_graph_html', { max_nodes: 300 });
    const toolRows = [
      `| gc_scan, every rule pack over ${scan1.data.files_scanned} files: first call / second (cached per file) | ${scan1.ms.toFixed(0)} / ${scan2.ms.toFixed(0)} ms; ${scan1.data.total} findings (${Object.entries(scan1.data.by_rule as Record<string, number>).map(([r, n]) => `${r} ${n}`).join(', ')}) |`,
      `| gc_edit_plan ("${plan.data.request.slice(0, 50)}…"): top files | ${plan.ms.toFixed(0)} ms; ${(plan.data.files as { path: string; role: string }[]).slice(0, 4).map((f) => `${f.path} (${f.role})`).join(', ')} |`,
      `| gc_agent_capsule, 1,000 tokens | ${capsule.ms.toFixed(0)} ms; ${capsule.data.tokens} tokens, sections ${(capsule.data.sections as string[]).join(', ')} |`,
      `| gc_context_render, 2 symbols + 1 file + dependencies, 4,000 tokens | ${render.ms.toFixed(0)} ms; ${render.data.tokens} tokens, ${(render.data.items as { tier: string }[]).map((i) => i.tier).join(' ')} |`,
      `| export_graph_graphml, 20,000 definitions | ${graphml.ms.toFixed(0)} ms; ${(Buffer.byteLength(graphml.data.graphml) / 1e6).toFixed(1)} MB, ${graphml.data.nodes} nodes, ${graphml.data.edges} edges |`,
      `| visualize_graph_html, 300 most central definitions | ${html.ms.toFixed(0)} ms; ${(html.data.bytes / 1e3).toFixed(0)} kB, ${html.data.edges} edges |`,
    ];

    console.log(`# bench/codeintel/run (${new Date().toISOString()})`);
    console.log(`machine: ${threads} pool threads, load average at start ${load}, database ${databaseUrl ? 'PostgreSQL' : 'PGlite (memory)'}, Node ${process.version}`);
    console.log(`corpus: Python stdlib ${stdlib}: ${files.length} files, ${(chars / 1e6).toFixed(1)} M chars, ${indexedPaths.size} indexed, ${skipped} skipped`);
    console.log('');
    console.log('| measure | result |');
    console.log('|---|---:|');
    console.log(`| index the stdlib (gc_orient over MCP, ${batches.length} calls: parse in the pool, store, graph in the index thread) | ${indexSeconds.toFixed(2)} s |`);
    console.log(`| index: files / definitions / edges | ${last.index.files} / ${last.index.units} / ${last.index.edges} |`);
    console.log(`| re-index one changed file (${target.path}), gc_orient round trip: median / max of ${EDITS} | ${pct(reindex, 50).toFixed(1)} / ${Math.max(...reindex).toFixed(1)} ms |`);
    console.log(`| … of which incremental graph update in the thread: median / max | ${pct(graphMs, 50).toFixed(1)} / ${Math.max(...graphMs).toFixed(1)} ms |`);
    console.log(`| … of which the ingest (parse in the pool, store, graph update): median; its parse part | ${pct(ingestMs, 50).toFixed(0)} ms; ${pct(parseMs, 50).toFixed(0)} ms |`);
    console.log(`| … the rest (orientation: PageRank of the new graph and the summary, MCP transport): median | ${pct(reindex.map((x, i) => x - ingestMs[i]!), 50).toFixed(0)} ms |`);
    console.log(`| gc_refs over MCP, ${QUERIES} random functions/methods: p50 / p99 | ${pct(refsMs, 50).toFixed(2)} / ${pct(refsMs, 99).toFixed(2)} ms |`);
    console.log(`| gc_callers over MCP: p50 / p99 | ${pct(callersMs, 50).toFixed(2)} / ${pct(callersMs, 99).toFixed(2)} ms |`);
    console.log(`| floor: estimate_tokens over the same MCP session: p50 / p99 | ${pct(floorMs, 50).toFixed(2)} / ${pct(floorMs, 99).toFixed(2)} ms |`);
    console.log(`| gc_defs recall vs ast (${astDefs.length} module- and class-level defs found by qualified name at their line) | ${(hit / astDefs.length).toFixed(4)} |`);
    console.log(`| gc_defs precision vs ast (our ${ourCounted} definitions in files ast parses that are ast defs) | ${(ourTrue / Math.max(1, ourCounted)).toFixed(4)} |`);
    console.log(`| gc_defs tool, ${toolSample} sampled ast defs looked up as path:qualname | ${toolHits} / ${toolSample} |`);
    for (const row of toolRows) console.log(row);
    console.log('');
    console.log('per batch:', perBatch);
    console.log('ast defs we miss (first 10):', misses);
    console.log('our definitions ast does not have (first 10):', extras);
    await client.close();
  } finally {
    await app.close();
    if (dataDir !== 'memory://') rmSync(dataDir, { recursive: true, force: true });
    if (drop) await drop();
  }
}

// Module- and class-level function and class definitions with their qualified names; a decorated
// definition may be reported at its `def`/`class` line or its first decorator's line.
const PY_AST = String.raw`
import ast, json, os, sys, warnings
warnings.simplefilter('ignore')
root, out, sub = sys.argv[1], sys.argv[2], sys.argv[3]
defs = []
for dirpath, dirnames, filenames in os.walk(os.path.join(root, sub)):
    dirnames[:] = sorted(d for d in dirnames if d not in ('site-packages', '__pycache__'))
    for name in sorted(filenames):
        if not name.endswith('.py'):
            continue
        p = os.path.join(dirpath, name)
        try:
            with open(p, encoding='utf-8') as f:
                tree = ast.parse(f.read())
        except Exception:
            continue
        rel = os.path.relpath(p, root)
        def visit(body, prefix):
            for node in body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    lines = [node.lineno] + [d.lineno for d in node.decorator_list]
                    defs.append({'path': rel, 'qualname': prefix + node.name, 'lines': sorted(set(lines))})
                    if isinstance(node, ast.ClassDef):
                        visit(node.body, prefix + node.name + '.')
                elif isinstance(node, (ast.If, ast.Try)):
                    visit(node.body, prefix)
                    visit(getattr(node, 'orelse', []), prefix)
                    for h in getattr(node, 'handlers', []):
                        visit(h.body, prefix)
                    visit(getattr(node, 'finalbody', []), prefix)
        visit(tree.body, '')
json.dump(defs, open(out, 'w'))
`;
import { SMOKE, sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
