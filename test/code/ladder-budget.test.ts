// Issue 48, the code ladder: nested named functions are units, each level holds its budget (or says
// why), levels nest (what outline shows is in balanced, what balanced shows is in detailed), detailed
// never returns a whole file over its budget, and a structural output shows a class's header line
// above every method it shows. Property checks over installed npm packages and the Python stdlib
// (files nobody here wrote), plus the issue's own cases with their numbers.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile, CodeIndex, compressCode, compressStructural } from './helpers.js';

const NM = resolve(process.cwd(), 'node_modules');
function stdlib(): string | null {
  try {
    return execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}
const PY = stdlib();
const inDir = (dir: string, names?: string[]) => (existsSync(join(NM, dir)) ? (names ?? readdirSync(join(NM, dir)).filter((n) => /\.(js|ts)$/.test(n)).sort()).map((n) => join(NM, dir, n)) : []);
/** About forty files: JavaScript (CommonJS and ES modules), TypeScript and Python. */
const CORPUS = [
  ...inDir('debug/src'),
  ...inDir('ws/lib'),
  ...inDir('rxjs/src/internal', ['Subscriber.ts', 'Observable.ts', 'Subject.ts', 'Subscription.ts', 'operators/timeout.ts', 'operators/mergeInternals.ts', 'operators/share.ts', 'util/pipe.ts']),
  ...inDir('postgres/src', ['index.js', 'connection.js', 'query.js', 'types.js']),
  ...inDir('piscina/dist', ['common.js', 'index.js', 'worker.js']),
  ...(PY ? ['functools.py', 'linecache.py', 'textwrap.py', 'contextlib.py', 'shlex.py', 'queue.py', 'heapq.py', 'tempfile.py'].map((n) => join(PY, n)) : []),
].filter((p) => existsSync(p));

const LEVELS = ['outline', 'balanced', 'detailed'] as const;
/** Lines of an output that are source lines as written (markers, cut docs and elisions excluded). */
function sourceLines(out: string, source: Set<string>): Set<string> {
  return new Set(out.split('\n').map((l) => l.trim()).filter((l) => l && !/\.\.\.|…/.test(l) && source.has(l)));
}

describe('code ladder properties over installed sources', () => {
  it(`the corpus is there (${CORPUS.length} files)`, () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
  });

  for (const path of CORPUS) {
    const name = path.startsWith(NM) ? path.slice(NM.length + 1) : `python/${path.split('/').pop()}`;
    it(`${name}: levels nest, hold their budgets or say why, and name every nested function`, () => {
      const code = readFileSync(path, 'utf8');
      const source = new Set(code.split('\n').map((l) => l.trim()).filter(Boolean));
      const r = Object.fromEntries(LEVELS.map((fidelity) => [fidelity, compressCode({ code, filename: path, fidelity, markerIds: true })])) as Record<(typeof LEVELS)[number], ReturnType<typeof compressCode>>;
      const shown = Object.fromEntries(LEVELS.map((f) => [f, sourceLines(r[f].skeleton, source)])) as Record<(typeof LEVELS)[number], Set<string>>;
      for (const [lower, upper] of [['outline', 'balanced'], ['balanced', 'detailed']] as const) {
        const missing = [...shown[lower]].filter((l) => !shown[upper].has(l));
        expect(missing, `${lower} shows lines ${upper} does not`).toEqual([]);
        expect(r[upper].compressed_tokens).toBeGreaterThanOrEqual(Math.min(r[lower].compressed_tokens, r[upper].token_budget));
      }
      for (const f of LEVELS) {
        const out = r[f];
        expect(out.token_budget).toBe(Math.floor(out.original_tokens * { outline: 0.1, balanced: 0.2, detailed: 0.4 }[f]));
        if (out.compressed_tokens > out.token_budget) {
          expect(out.budget_note, `${f} over its budget without a reason`).toMatch(/never cut|not be shorter/);
          expect(out.over_budget).toBe(/not be shorter/.test(out.budget_note!) ? 'not_shorter' : 'floor');
        } else {
          expect(out.budget_note).toBeNull();
          expect(out.over_budget).toBeUndefined();
        }
      }
      // Detailed never returns the whole file when the file is over its budget.
      expect(r.detailed.skeleton === code && r.detailed.original_tokens > r.detailed.token_budget).toBe(false);
      // Nested named functions are units, their signatures shown from outline up.
      const { units } = analyzeFile({ path, content: code });
      for (const u of units) {
        const parent = u.parent >= 0 ? units[u.parent]! : null;
        if (!parent || (parent.kind !== 'function' && parent.kind !== 'method')) continue;
        expect(r.outline.skeleton, `${u.qualified} at outline`).toContain(u.signature.split('\n')[0]!.trim());
      }
    });
  }
});

describe('structural outputs show the class header above every method shown', () => {
  const groups = [inDir('ws/lib'), inDir('rxjs/src/internal', ['Subscriber.ts', 'Observable.ts', 'Subject.ts', 'Subscription.ts']), inDir('piscina/dist', ['index.js', 'worker.js'])].filter((g) => g.length > 0);
  for (const group of groups) {
    it(`${group[0]!.split('/').slice(-3, -1).join('/')}: ${group.length} files`, () => {
      const files = group.map((p) => ({ path: p.slice(NM.length + 1), content: readFileSync(p, 'utf8') }));
      let methods = 0;
      for (const token_budget of [1500, 4000]) {
        const r = compressStructural({ files, token_budget });
        const sections = new Map<string, string>();
        for (const part of r.output.split(/^--- /m).slice(1)) sections.set(part.slice(0, part.indexOf(' ---')), part);
        const analyses = new Map(files.map((f) => [f.path, analyzeFile(f)]));
        for (const entry of r.ranking) {
          if (entry.kind !== 'method' || (entry.rendered !== 'full' && entry.rendered !== 'signature')) continue;
          const { units } = analyses.get(entry.path)!;
          const unit = units.find((u) => u.id === entry.id)!;
          if (unit.parent < 0) continue; // object-literal members have no header unit
          const section = sections.get(entry.path)!;
          const header = units[unit.parent]!.signature.split('\n')[0]!.trim();
          const headerAt = section.indexOf(header);
          expect(headerAt, `${entry.name}: ${header} shown`).not.toBe(-1);
          expect(section.indexOf(unit.signature.split('\n')[0]!.trim(), headerAt), `${entry.name} under ${header}`).toBeGreaterThan(headerAt);
          methods++;
        }
      }
      expect(methods).toBeGreaterThan(0);
    });
  }
});

const read = (p: string) => readFileSync(join(NM, p), 'utf8');

describe.skipIf(!existsSync(join(NM, 'debug/src/common.js')))('debug/src/common.js: one setup() around ten nested functions', () => {
  const code = read('debug/src/common.js');
  const names = ['setup', 'selectColor', 'createDebug', 'debug', 'extend', 'enable', 'matchesTemplate', 'disable', 'enabled', 'coerce', 'destroy'];

  it('names all 11 functions at outline, balanced and detailed (before: 1 of 11 at every level)', () => {
    const r = compressCode({ code, filename: 'common.js', fidelity: 'outline' });
    expect(r.dependency_graph.nodes.map((n) => n.name.split('.').pop()).sort()).toEqual([...names].sort());
    for (const fidelity of LEVELS) {
      const out = compressCode({ code, filename: 'common.js', fidelity, markerIds: true }).skeleton;
      for (const n of names) expect(out, `${n} at ${fidelity}`).toMatch(new RegExp(`function ${n}\\(`));
    }
    expect(r.skeleton).toContain('\tfunction createDebug(namespace) {\n');
    expect(r.skeleton).toContain('\t\tfunction debug(...args) { … }');
  });

  it('balanced and detailed hold 20% and 40% (before: 47 tokens at balanced, 1,820 of 1,821 at detailed)', () => {
    for (const [fidelity, share] of [['balanced', 0.2], ['detailed', 0.4]] as const) {
      const r = compressCode({ code, filename: 'common.js', fidelity, markerIds: true });
      expect(r.compressed_tokens).toBeLessThanOrEqual(Math.floor(r.original_tokens * share));
      // Filled, not starved: within 15% of the budget.
      expect(r.compressed_tokens).toBeGreaterThan(Math.floor(r.original_tokens * share * 0.85));
      expect(r.budget_note).toBeNull();
    }
  });
});

describe.skipIf(!existsSync(join(NM, 'rxjs/src/internal/operators/timeout.ts')))('rxjs: docs budgeted like bodies', () => {
  it('timeout.ts at detailed keeps at most 40% (before: 76.9%, its JSDoc whole)', () => {
    const r = compressCode({ code: read('rxjs/src/internal/operators/timeout.ts'), filename: 'timeout.ts', fidelity: 'detailed', markerIds: true });
    expect(r.compressed_tokens / r.original_tokens).toBeLessThanOrEqual(0.4);
    expect(r.budget_note).toBeNull();
  });

  it('Subscriber.ts at balanced adds nothing past its outline when the outline alone passes 20%, and says so (before: 54%)', () => {
    const code = read('rxjs/src/internal/Subscriber.ts');
    const at = (fidelity: 'outline' | 'balanced') => compressCode({ code, filename: 'Subscriber.ts', fidelity, markerIds: true });
    const outline = at('outline');
    const balanced = at('balanced');
    expect(outline.compressed_tokens).toBeGreaterThan(balanced.token_budget);
    expect(balanced.compressed_tokens).toBe(outline.compressed_tokens);
    expect(balanced.compressed_tokens / balanced.original_tokens).toBeLessThan(0.54);
    expect(balanced.budget_note).toMatch(/^\d+ tokens against a balanced budget of \d+: the signatures/);
  });
});

describe('nested definitions in a small file', () => {
  const js = [
    'function outer(a) {',
    '  const base = a * 2;',
    '  function inner(b) {',
    '    return base + b;',
    '  }',
    '  const twice = (c) => {',
    '    return inner(inner(c));',
    '  };',
    '  return twice(base);',
    '}',
    '',
  ].join('\n');
  const py = ['def lru(maxsize=128):', '    """Cache results."""', '    if maxsize < 0:', '        maxsize = 0', '    def decorating(fn):', '        return wrap(fn, maxsize)', '    return decorating', ''].join('\n');

  it('are units under their function, its own statements elided around them', () => {
    const r = compressCode({ code: js, filename: 'n.js', fidelity: 'outline' });
    expect(r.dependency_graph.nodes.map((n) => n.name)).toEqual(['outer', 'outer.inner', 'outer.twice']);
    expect(r.dependency_graph.nodes.map((n) => n.kind)).toEqual(['function', 'function', 'function']);
    expect(r.skeleton).toBe('function outer(a) {\n  …\n  function inner(b) { … }\n  const twice = (c) => { … };\n  …\n}\n');
    expect(compressCode({ code: js, filename: 'n.js', fidelity: 'raw' }).skeleton).toBe(js);
    const p = compressCode({ code: py, filename: 'n.py', fidelity: 'outline' });
    expect(p.skeleton).toBe('def lru(maxsize=128):\n    ...\n    def decorating(fn):\n        ...\n    ...\n');
    expect(p.dependency_graph.nodes.map((n) => n.name)).toEqual(['lru', 'lru.decorating']);
  });

  it('a nested function is local: not exported, never dead code by itself', () => {
    const a = analyzeFile({ path: 'n.js', content: `${js}module.exports = outer\n` });
    expect(a.units.map((u) => [u.qualified, u.exported])).toEqual([['outer', true], ['outer.inner', false], ['outer.twice', false]]);
    const returned = 'function make() {\n  function helper() {\n    return 1;\n  }\n  return helper;\n}\nfunction unused() {\n  return 2;\n}\nmodule.exports = make;\n';
    expect(new CodeIndex([analyzeFile({ path: 'm.js', content: returned })]).deadCode().map((d) => d.qualified)).toEqual(['unused']);
  });
});
