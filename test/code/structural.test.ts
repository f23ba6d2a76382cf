import { describe, expect, it } from 'vitest';
import { BlastRadiusInputError, CodeIndex, analyzeFiles, compressStructural, structuralFromAnalyses } from './helpers.js';
import { codeTasks } from '../../workers/code/tasks.js';

const FILES = [
  {
    path: 'app/db.py',
    content: 'import sqlite3\n\n\ndef connect(path: str):\n    """Open a database connection."""\n    return sqlite3.connect(path)\n\n\ndef execute_query(conn, sql: str):\n    """Run one SQL statement."""\n    return conn.execute(sql)\n',
  },
  {
    path: 'app/users.py',
    content: 'from app.db import connect, execute_query\n\n\nclass UserStore:\n    """Stores users."""\n\n    def __init__(self, path):\n        self.conn = connect(path)\n\n    def fetch_user(self, user_id: int):\n        """Fetch one user by id."""\n        return execute_query(self.conn, f"select * from users where id={user_id}")\n',
  },
  {
    path: 'app/api.py',
    content: 'from app.users import UserStore\n\n\ndef get_user_handler(request):\n    """HTTP handler returning a user."""\n    store = UserStore("db.sqlite")\n    return store.fetch_user(request.id)\n\n\ndef health(request):\n    return "ok"\n',
  },
  {
    path: 'app/cli.py',
    content: 'from app.api import get_user_handler\n\n\ndef main():\n    print(get_user_handler(None))\n',
  },
  {
    path: 'app/unused.py',
    content: 'def _orphan_helper():\n    return 42\n\n\ndef render_template(name):\n    return name.upper()\n',
  },
];

describe('structural compression', () => {
  it('follows calls across files in both directions', () => {
    const r = compressStructural({ files: FILES, focus_symbols: ['execute_query'], token_budget: 2000 });
    expect(r.blast_radius).not.toBeNull();
    const dependents = r.blast_radius!.dependents.map((d) => d.name);
    expect(dependents).toContain('UserStore.fetch_user');
    expect(dependents).toContain('get_user_handler');
    expect(dependents).toContain('main');
    expect(dependents).not.toContain('health');
    const byName = new Map(r.blast_radius!.dependents.map((d) => [d.name, d]));
    expect(byName.get('UserStore.fetch_user')!.distance).toBe(1);
    expect(byName.get('get_user_handler')!.distance).toBe(2);
    expect(byName.get('main')!.distance).toBe(3);
    expect(byName.get('main')!.score).toBeLessThan(byName.get('get_user_handler')!.score);
    expect(r.blast_radius!.affected_files).toEqual(['app/api.py', 'app/cli.py', 'app/db.py', 'app/users.py']);
    const down = compressStructural({ files: FILES, focus_symbols: ['get_user_handler'] }).blast_radius!.dependencies.map((d) => d.name);
    expect(down).toEqual(expect.arrayContaining(['UserStore', 'UserStore.fetch_user', 'execute_query', 'connect']));
    expect(r.result_incomplete).toBe(false);
  });

  it('resolves imports to files', () => {
    const r = compressStructural({ files: FILES });
    const users = r.file_imports.find((f) => f.path === 'app/users.py')!;
    expect(users.resolved).toEqual(['app/db.py']);
    expect(r.file_imports.find((f) => f.path === 'app/db.py')!.unresolved).toEqual(['sqlite3']);
  });

  it('fuses BM25, blast radius and PageRank and reports each signal', () => {
    const r = compressStructural({ files: FILES, query: 'fetch user by id', focus_symbols: ['execute_query'], token_budget: 400 });
    expect(r.ranking[0]!.name).toBe('UserStore.fetch_user');
    const top = r.ranking[0]!;
    expect(top.signals.bm25).toBeGreaterThan(0);
    expect(top.signals.blast).toBe(0.5);
    expect(top.signal_ranks.pagerank).toBeGreaterThan(0);
    expect(top.rendered).toBe('full');
    expect(r.ranking.map((u) => u.rank)).toEqual(r.ranking.map((_, i) => i + 1));
    const orphan = r.ranking.find((u) => u.name === '_orphan_helper')!;
    expect(orphan.signals.bm25).toBeNull();
    expect(orphan.signals.blast).toBeNull();
  });

  it('respects the token budget and renders in tiers', () => {
    for (const budget of [60, 150, 400, 5000]) {
      const r = compressStructural({ files: FILES, query: 'database connection', token_budget: budget });
      expect(r.compressed_tokens).toBeLessThanOrEqual(budget);
      expect(r.token_budget).toBe(budget);
    }
    const mid = compressStructural({ files: FILES, query: 'database connection', token_budget: 150 });
    const tiers = new Set(mid.ranking.map((u) => u.rendered));
    expect(tiers.has('full') || tiers.has('signature')).toBe(true);
    expect(mid.output).toContain('--- app/db.py ---');
  });

  it('raw is the source whatever its size, and no fidelity returns more tokens than were sent', () => {
    // Large enough that raw's share of the input would pass the default budget cap (32,000 tokens).
    const big = Array.from({ length: 700 }, (_, k) => ({
      path: `pkg/m${k}.py`,
      content: `def f${k}(a, b):\n    "Adds ${k}."\n    total = a + b + ${k}\n    for i in range(${k}):\n        total += i * ${k} - b\n    return total\n\n\ndef g${k}(x):\n    return f${k}(x, ${k}) * 2 + len(str(x)) - ${k}\n`,
    }));
    const raw = compressStructural({ files: big, fidelity: 'raw' });
    expect(raw.original_tokens).toBeGreaterThan(32_000);
    for (const f of big) expect(raw.output).toContain(f.content);
    expect(raw.savings_percent).toBe(0);
    const tiny = [{ path: 'a.py', content: 'def f():\n    return 1\n' }];
    for (const fidelity of ['abstract', 'outline', 'balanced', 'detailed', 'raw'] as const) {
      const r = compressStructural({ files: tiny, fidelity });
      expect(r.compressed_tokens, fidelity).toBeLessThanOrEqual(r.original_tokens);
      expect(r.output).toContain('def f():\n    return 1');
    }
  });

  it('reports unresolved focus symbols', () => {
    const r = compressStructural({ files: FILES, focus_symbols: ['execute_query', 'no_such_symbol'] });
    expect(r.result_incomplete).toBe(true);
    expect(r.not_found).toEqual(['no_such_symbol']);
    expect(r.blast_radius!.resolved['no_such_symbol']).toEqual([]);
  });

  it('raises BlastRadiusInputError when blast radius is asked without focus', () => {
    expect(() => compressStructural({ files: FILES, blast_radius: true })).toThrow(BlastRadiusInputError);
    expect(() => compressStructural({ files: FILES, blast_radius: true, focus_symbols: ['  '] })).toThrow(BlastRadiusInputError);
    try {
      new CodeIndex(analyzeFiles(FILES)).blastRadius([]);
    } catch (e) {
      expect((e as Error).name).toBe('BlastRadiusInputError');
    }
  });

  it('handles an empty set and files without a grammar', () => {
    const empty = compressStructural({ files: [] });
    expect(empty.output).toBe('');
    expect(empty.units).toBe(0);
    const mixed = compressStructural({ files: [...FILES, { path: 'tools/run.rb', content: 'class Runner\n  def go\n    fetch_user(1)\n  end\nend\n' }], query: 'runner' });
    expect(mixed.parsers).toEqual({ 'tree-sitter': 5, 'line-fallback': 1 });
    expect(mixed.languages.ruby).toBe(1);
    expect(mixed.ranking[0]!.name).toBe('Runner');
  });

  it('works across languages in one set (TypeScript imports resolved by relative path)', () => {
    const files = [
      { path: 'src/math.ts', content: 'export function square(x: number): number {\n  return x * x;\n}\n' },
      { path: 'src/geo.ts', content: "import { square } from './math.js';\n\nexport function dist(a: number, b: number): number {\n  return Math.sqrt(square(a) + square(b));\n}\n" },
      { path: 'src/main.ts', content: "import { dist } from './geo.js';\n\nconsole.log(dist(3, 4));\nexport function run(): number {\n  return dist(1, 2);\n}\n" },
    ];
    const r = compressStructural({ files, focus_symbols: ['square'] });
    expect(r.file_imports.find((f) => f.path === 'src/geo.ts')!.resolved).toEqual(['src/math.ts']);
    expect(r.blast_radius!.dependents.map((d) => d.name)).toEqual(['dist', 'run']);
  });
});

describe('CodeIndex (MCP tool backing)', () => {
  const index = new CodeIndex(analyzeFiles(FILES));

  it('defs / refs / callers / callees / source', () => {
    expect(index.defs('connect').map((d) => d.path)).toEqual(['app/db.py']);
    expect(index.defs('UserStore.fetch_user')[0]!.signature).toBe('def fetch_user(self, user_id: int):');
    expect(index.callers('execute_query').map((c) => c.qualified)).toEqual(['UserStore.fetch_user']);
    expect(index.refs('UserStore').map((c) => c.qualified)).toContain('get_user_handler');
    expect(index.callees('get_user_handler').map((c) => c.qualified).sort()).toEqual(['UserStore', 'UserStore.fetch_user']);
    expect(index.source('app/db.py:connect')[0]!.text).toContain('return sqlite3.connect(path)');
    expect(index.impact(['connect']).map((d) => d.name)).toContain('main');
  });

  it('finds dead code', () => {
    expect(index.deadCode().map((d) => d.name)).toEqual(['_orphan_helper']);
  });
});

describe('pool tasks', () => {
  it('exposes compressCode, analyzeFiles and structural with cloneable data', () => {
    expect(Object.keys(codeTasks).sort()).toEqual(['analyzeFiles', 'compressCode', 'structural']);
    const analyses = structuredClone(codeTasks.analyzeFiles({ files: FILES }));
    const viaTasks = codeTasks.structural({ analyses, query: 'user', token_budget: 300 });
    const direct = structuralFromAnalyses(analyzeFiles(FILES), { query: 'user', token_budget: 300 });
    expect(structuredClone(viaTasks)).toEqual({ ...direct, timings_ms: viaTasks.timings_ms });
    expect(codeTasks.compressCode({ code: 'def a():\n    pass\n', language: 'python', fidelity: 'balanced' }).language).toBe('python');
  });
});
