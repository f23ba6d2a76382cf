// gc_edit_plan on the index itself: plural words find singular names, test code is role test
// (counted half, so the code under change comes first), and what uses the seeds is role check.
// Also the capsule's external modules and gc_context_render's dependency accounting.
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../workers/code/index.js';
import { RepoIndex } from '../../workers/codeIntel/repoIndex.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { REPO } from './fixtures.js';
import { BENIGN, POSITIVE } from './scanFixtures.js';

const TEST_FILE = `from pkg.store import Store


def test_save_stores_values():
    s = Store()
    s.save("k", "v")
    assert s.items == {"k": "v"}
`;

describe('gc_edit_plan ranking', () => {
  it('edits the code first, lists the tests that exercise it, and checks the callers', () => {
    const idx = new RepoIndex();
    idx.apply([...Object.entries(REPO), ['tests/test_store.py', TEST_FILE]].map(([p, c]) => analyzeFile({ path: p!, content: c! })), []);
    const plan = idx.editPlan({ request: 'Store saves values', max_files: 10, max_symbols: 20, depth: 2 });
    expect(plan.files[0]).toMatchObject({ path: 'pkg/store.py', role: 'edit' });
    const test = plan.files.find((f) => f.path === 'tests/test_store.py')!;
    expect(test).toMatchObject({ role: 'test', is_test: true });
    expect(plan.tests).toContain('tests/test_store.py');
    // The test file's own match counts half: it ranks below the store it tests.
    expect(plan.files.findIndex((f) => f.path === 'tests/test_store.py')).toBeGreaterThan(0);
    expect(plan.symbols.find((x) => x.qualified === 'endpoint')).toMatchObject({ role: 'check' });
    // "saves" asked for "save" too.
    expect(plan.symbols.some((x) => x.qualified === 'Store.save' && x.role === 'edit')).toBe(true);
  });
});

describe('gc_agent_capsule and gc_context_render details', () => {
  it('external modules are packages, not relative imports the resolver could not place', () => {
    const idx = new RepoIndex();
    const extra = "import { z } from 'zod';\nimport { gone } from './missing.js';\n\nexport function check(v: unknown) {\n  return z.string().parse(gone(v));\n}\n";
    idx.apply([...Object.entries(REPO), ['src/check.ts', extra]].map(([p, c]) => analyzeFile({ path: p!, content: c! })), []);
    const c = idx.capsule({ token_budget: 2000, query: null, top: 10 });
    const section = c.capsule.split('## External modules')[1]!.split('##')[0]!;
    expect(section).toContain('- zod (1 files)');
    expect(section).not.toContain('missing');
  });

  it('dependencies that do not fit are counted, not listed as omitted items', () => {
    const idx = new RepoIndex();
    idx.apply(Object.entries(REPO).map(([p, c]) => analyzeFile({ path: p, content: c })), []);
    const alone = idx.contextRender({ symbols: ['handle'], files: [], token_budget: 4000, include_dependencies: false });
    const tight = idx.contextRender({ symbols: ['handle'], files: [], token_budget: alone.tokens + 2, include_dependencies: true });
    expect(tight.items).toEqual([expect.objectContaining({ ref: 'handle', tier: 'full' })]);
    expect(tight.dependencies_omitted).toBeGreaterThan(0);
    expect(tight.result_incomplete).toBe(false);
    expect(tight.tokens).toBeLessThanOrEqual(alone.tokens + 2);
  });

  it('the rendered text and the capsule never exceed the budget, whatever was asked', () => {
    const idx = new RepoIndex();
    const more = [...Object.values(POSITIVE), ...Object.values(BENIGN)].map((f) => [f.path, f.content] as const);
    idx.apply([...Object.entries(REPO), ...more].map(([p, c]) => analyzeFile({ path: p, content: c })), []);
    const symbols = ['Store.save', 'handle', 'Greeter', 'find_user', 'restore', 'download', 'hash_password'];
    const files = ['app/queries.py', 'src/util.ts', 'app/files_safe.py'];
    for (const budget of [64, 90, 150, 256, 400, 700, 1500]) {
      for (let k = 0; k <= symbols.length; k++) {
        const r = idx.contextRender({ symbols: symbols.slice(0, k), files: files.slice(0, (k % 3) + 1), token_budget: budget, include_dependencies: k % 2 === 1 });
        expect(countTokens(r.rendered), `render ${budget}/${k}`).toBeLessThanOrEqual(budget);
        const c = idx.capsule({ token_budget: budget, query: k % 2 ? 'store value' : null, top: 10 });
        expect(countTokens(c.capsule), `capsule ${budget}/${k}`).toBeLessThanOrEqual(budget);
      }
    }
  });
});
