// The layering rules of docs/architecture.md, checked on the source: a new file that breaks one fails here.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/lib/root.js';
import { cyclesOf, importsOf, type ImportEdge } from './importGraph.js';

const root = packageRoot();
const sources = execSync("git ls-files --cached --others --exclude-standard 'src/*.ts' 'src/**/*.ts' 'workers/*.ts' 'workers/**/*.ts'", { cwd: root, encoding: 'utf8' })
  .trim()
  .split('\n')
  .filter((f) => existsSync(resolve(root, f)));
const text = new Map(sources.map((f) => [f, readFileSync(resolve(root, f), 'utf8')]));
const known = new Set(sources);
const edges = new Map<string, ImportEdge[]>(sources.map((f) => [f, importsOf(f, text.get(f)!, known, root)]));

describe('architecture boundaries', () => {
  it('has no import cycles between our modules, type imports included', () => {
    const graph = new Map([...edges].map(([f, es]) => [f, es.map((e) => e.to)]));
    expect(cyclesOf(graph).map((scc) => scc.join(' '))).toEqual([]);
  });

  it('finds a cycle made only of type imports (the finder itself)', () => {
    const files = new Set(['a.ts', 'b.ts', 'c.ts']);
    const a = importsOf('a.ts', "import type { B } from './b.js';\n", files, '/r');
    const b = importsOf('b.ts', "import {\n  type C,\n} from './c.js';\nexport { x } from './a.js';\n", files, '/r');
    expect(a).toEqual([{ to: 'b.ts', spec: './b.js', value: false, dynamic: false }]);
    expect(b.map((e) => [e.to, e.value])).toEqual([['c.ts', false], ['a.ts', true]]);
    expect(cyclesOf(new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts', 'a.ts']], ['c.ts', []]]))).toEqual([['a.ts', 'b.ts']]);
  });

  it('reaches the compute pool and the index threads only through the domain layer (src/domain/compute.ts)', () => {
    const direct = sources.filter((f) => f.startsWith('src/') && f !== 'src/domain/compute.ts' && /\b(pool|door)\.run\(/.test(text.get(f)!));
    expect(direct).toEqual([]);
  });

  it('starts threads only in the pool and the one thread client', () => {
    const starters = sources.filter((f) => /\bnew (Worker|Piscina)\(/.test(text.get(f)!));
    expect(starters.sort()).toEqual(['src/pool/pool.ts', 'src/pool/threadClient.ts']);
  });

  it('keeps engine code off the event loop: src/ takes only workers/shared/ values (types from anywhere)', () => {
    // The command-line client (src/cli) runs the engines locally in its own process, on purpose.
    const leaks = [...edges]
      .filter(([f]) => f.startsWith('src/') && !f.startsWith('src/cli/'))
      .flatMap(([f, es]) => es.filter((e) => e.value && e.to.startsWith('workers/') && !e.to.startsWith('workers/shared/')).map((e) => `${f} -> ${e.to}`));
    expect(leaks).toEqual([]);
  });

  it('keeps the surfaces apart: MCP tools never import routes, routes never import MCP tools', () => {
    const crossing = [...edges].flatMap(([f, es]) =>
      es
        .filter((e) => (f.startsWith('src/mcp/tools/') && e.to.startsWith('src/routes/')) || (f.startsWith('src/routes/') && e.to.startsWith('src/mcp/tools/')))
        .map((e) => `${f} -> ${e.to}`),
    );
    expect(crossing).toEqual([]);
  });

  it('keeps MCP tools in a folder per feature (src/mcp/tools/<feature>/); at the top only the registry list, tool_help and shared output shapes', () => {
    const top = sources.filter((f) => /^src\/mcp\/tools\/[^/]+\.ts$/.test(f)).sort();
    expect(top).toEqual(['src/mcp/tools/help.ts', 'src/mcp/tools/index.ts', 'src/mcp/tools/outputs.ts']);
  });

  it('keeps SQL in the domain and the store: no query in a route or an MCP tool', () => {
    const sql = sources.filter((f) => (f.startsWith('src/routes/') || f.startsWith('src/mcp/tools/')) && /\.(query|unsafe)\s*(<[^>]*>)?\(|\bsql`/.test(text.get(f)!));
    expect(sql).toEqual([]);
  });

  it('turns instants into ISO strings in one place (src/lib/time.ts)', () => {
    const inline = sources.filter((f) => f.startsWith('src/') && f !== 'src/lib/time.ts' && /new Date\([^)]*\)\.toISOString\(\)|const iso = /.test(text.get(f)!));
    expect(inline).toEqual([]);
  });

  it('keeps HTTP out of the domain: use cases throw DomainErrors, never HttpErrors', () => {
    const leaks = sources.filter((f) => f.startsWith('src/domain/') && /from '[./]+\/http\//.test(text.get(f)!));
    expect(leaks).toEqual([]);
  });

  // Ports, not a service locator of concrete types (docs/architecture.md, "Ports").
  const isPort = (f: string) => /^src\/domain\/(ports\/[^/]+|[^/]+\/ports)\.ts$/.test(f);

  it('builds Services from ports only: domain ports, the configuration, generic libs and the Db interface', () => {
    const allowed = (f: string) => isPort(f) || f === 'src/config.ts' || f === 'src/store/db.ts' || /^src\/lib\/[^/]+\.ts$/.test(f);
    const concrete = edges.get('src/services.ts')!.filter((e) => !allowed(e.to)).map((e) => e.to);
    expect(concrete).toEqual([]);
    expect(edges.get('src/services.ts')!.filter((e) => isPort(e.to)).length).toBeGreaterThanOrEqual(10);
  });

  it('keeps the ports to declarations: a port module imports types only', () => {
    const values = [...edges].filter(([f]) => isPort(f)).flatMap(([f, es]) => es.filter((e) => e.value).map((e) => `${f} -> ${e.to}`));
    expect(values).toEqual([]);
  });

  it('lets the configuration own its settings types: src/config.ts imports nothing from src/domain', () => {
    const fromDomain = edges.get('src/config.ts')!.filter((e) => e.to.startsWith('src/domain/')).map((e) => e.to);
    expect(fromDomain).toEqual([]);
  });

  it('keeps the workers free of host code', () => {
    const leaks = sources.filter((f) => f.startsWith('workers/') && edges.get(f)!.some((e) => e.to.startsWith('src/')));
    expect(leaks).toEqual([]);
  });
});
