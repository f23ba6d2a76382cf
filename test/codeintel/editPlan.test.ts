// gc_edit_plan on the index itself: plural words find singular names, test code is role test
// (counted half, so the code under change comes first), and what uses the seeds is role check.
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../workers/code/index.js';
import { RepoIndex } from '../../workers/codeIntel/repoIndex.js';
import { REPO } from './fixtures.js';

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
