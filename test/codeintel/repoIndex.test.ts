// The in-memory repository index on its own (no server): incremental updates give the same graph
// as a full build, and the queries behind the gc_* tools.
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../workers/code/index.js';
import { RepoIndex } from '../../workers/codeIntel/repoIndex.js';
import { codeIntelTasks } from '../../workers/codeIntel/tasks.js';
import { REPO } from './fixtures.js';


const analyse = (path: string, content: string) => analyzeFile({ path, content });
const all = () => Object.entries(REPO).map(([p, c]) => analyse(p, c));

describe('RepoIndex', () => {
  it('incremental updates equal a full build (change, add, delete)', () => {
    const inc = new RepoIndex();
    inc.apply(all(), []);
    const changedService = REPO['pkg/service.py']!.replace('return helper()', 'return helper() + extra()') + '\n\ndef extra():\n    return 3\n';
    const stats = inc.apply([analyse('pkg/service.py', changedService)], []);
    expect(stats.recomputed_files).toBeLessThan(Object.keys(REPO).length);
    inc.apply([analyse('pkg/extra.py', 'from pkg.service import extra\n\ndef more():\n    return extra()\n')], []);
    inc.apply([], ['pkg/api.py']);

    const full = new RepoIndex();
    const files = { ...REPO, 'pkg/service.py': changedService, 'pkg/extra.py': 'from pkg.service import extra\n\ndef more():\n    return extra()\n' };
    delete (files as Record<string, string>)['pkg/api.py'];
    full.apply(Object.entries(files).map(([p, c]) => analyse(p, c)), []);
    expect(inc.edgeList()).toEqual(full.edgeList());
    expect(inc.size).toEqual(full.size);
    expect(inc.edgeList().some((e) => e.includes('pkg/extra.py#more') && e.includes('pkg/service.py#extra'))).toBe(true);
  });

  it('incremental updates equal a full build when definitions move, change kind or export, or files come and go', () => {
    const inc = new RepoIndex();
    inc.apply(all(), []);
    const steps: Array<[Record<string, string>, string[]]> = [
      // A definition inserted above the others: every unit of the file moves, other files' edges into it are remapped.
      [{ 'pkg/store.py': `def first():\n    return helper()\n\n\n${REPO['pkg/store.py']}` }, []],
      // Same names, one function becomes a class: files naming it must be recomputed.
      [{ 'src/util.ts': REPO['src/util.ts']!.replace('export function formatName(first: string, last: string): string {\n  return first + \' \' + last;\n}', 'export class formatName {}') }, []],
      // A private helper stops being exported: explicit imports no longer reach it.
      [{ 'src/util.ts': REPO['src/util.ts']!.replace('export class Greeter', 'class Greeter') }, []],
      // A new file defining a name others use, then a deletion.
      [{ 'pkg/other.py': 'def helper():\n    return 2\n\n\ndef handle(k, v):\n    return helper()\n' }, []],
      [{}, ['pkg/service.py']],
      [{ 'pkg/service.py': REPO['pkg/service.py']! }, []],
      // A function passed as a value and a sibling method read as a property (the index's value references).
      [{ 'src/main.ts': `${REPO['src/main.ts']}\nexport const names = ['a'].map(formatName.bind(null));\nexport function each(xs: string[]) {\n  return xs.map(run);\n}\n` }, []],
    ];
    const current: Record<string, string> = { ...REPO };
    for (const [upserts, deleted] of steps) {
      inc.apply(Object.entries(upserts).map(([p, c]) => analyse(p, c)), deleted);
      Object.assign(current, upserts);
      for (const d of deleted) delete current[d];
      const full = new RepoIndex();
      full.apply(Object.entries(current).map(([p, c]) => analyse(p, c)), []);
      expect(inc.edgeList()).toEqual(full.edgeList());
      expect(inc.size).toEqual(full.size);
      expect([...inc.code.rank]).toEqual([...full.code.rank].map((x) => expect.closeTo(x, 12)));
      for (const symbol of ['helper', 'formatName', 'Store.save', 'Greeter.greet', 'run']) {
        expect(inc.refs(symbol, ['call', 'reference'], 100)).toEqual(full.refs(symbol, ['call', 'reference'], 100));
      }
    }
    // An edit that leaves every name as it was recomputes only the edited file.
    const stats = inc.apply([analyse('pkg/api.py', `${current['pkg/api.py']}\n# a comment\n`)], []);
    expect(stats.recomputed_files).toBe(1);
  });

  it('defs, refs with lines, callers, source, blast radius, dead code, repo map, search', () => {
    const idx = new RepoIndex();
    idx.apply(all(), []);
    const defs = idx.defs('Store.save', null, 10);
    expect(defs.definitions).toHaveLength(1);
    expect(defs.definitions[0]).toMatchObject({ path: 'pkg/store.py', start_line: 7, end_line: 9, kind: 'method' });

    const refs = idx.refs('Store.save', ['call', 'reference'], 50);
    expect(refs.references.map((r) => r.name)).toEqual(['handle']);
    expect(refs.references[0]!.lines).toEqual([6]);

    const callers = idx.refs('formatName', ['call'], 50);
    expect(callers.references.map((r) => r.qualified).sort()).toEqual(['Greeter.greet', 'run']);

    const src = idx.source('helper', 10_000, 5);
    expect(src.sources[0]!.text).toBe('def helper():\n    return 1');
    expect(src.sources[0]).toMatchObject({ start_line: 15, end_line: 16 });

    const blast = idx.blast(['Store.save'], 8, 100);
    expect(blast.dependents.map((d) => d.name)).toEqual(['handle', 'endpoint']);
    expect(blast.not_found).toEqual([]);
    const partial = idx.blast(['Store.save', 'NoSuchThing'], 8, 100);
    expect(partial).toMatchObject({ result_incomplete: true, not_found: ['NoSuchThing'] });
    expect(() => idx.blast([' '], 8, 100)).toThrow(/focus_symbol/);

    expect(idx.deadCode(null, 100).candidates.map((d) => d.name)).toContain("_unused_internal");

    const map = idx.repoMap({ query: null, focus_files: ['pkg/api.py'], focus_symbols: [], token_budget: 120 });
    expect(map.personalised).toBe(true);
    expect(map.map_tokens).toBeLessThanOrEqual(120);
    expect(map.map).toContain('pkg/api.py');
    const s = idx.search('greet name', 5);
    expect(s.results[0]!.qualified).toBe('Greeter.greet');
  });

  it('the pool task skips unchanged content and reports files it cannot parse', () => {
    const first = codeIntelTasks.codeIntelAnalyse({ files: [{ path: 'a.py', content: 'def a():\n    pass\n' }, { path: 'b.bin', content: 'x\u0000y' }], known: {} });
    expect(first.analysed.map((a) => a.path)).toEqual(['a.py']);
    expect(first.skipped).toMatchObject([{ path: 'b.bin', reason: 'not_text' }]);
    const again = codeIntelTasks.codeIntelAnalyse({ files: [{ path: 'a.py', content: 'def a():\n    pass\n' }], known: { 'a.py': first.analysed[0]!.hash } });
    expect(again.unchanged).toEqual(['a.py']);
  });
});
