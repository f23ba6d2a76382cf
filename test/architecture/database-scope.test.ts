// TEST_SCOPE=database (test/helpers/databaseScope.ts) leaves out of CI's PostgreSQL run only files that never
// open a database: checked here on files whose side is known, both ways.
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/lib/root.js';
import { databaseFreeTests } from '../helpers/databaseScope.js';

const free = new Set(databaseFreeTests(packageRoot()));

describe('database scope of the test files', () => {
  it('leaves out engine and source-only files', () => {
    for (const f of ['test/text/parse.test.ts', 'test/code/languages.test.ts', 'test/mcp/direct.test.ts', 'test/architecture/boundaries.test.ts']) {
      expect(free.has(f), f).toBe(true);
    }
  });

  it('keeps files that start a server, open the store, or start the built service or a bench', () => {
    for (const f of [
      'test/server/compress.test.ts', // test servers (test/helpers/server.ts)
      'test/store/pgliteThread.test.ts', // the store itself
      'test/runtime/runtimes.test.ts', // the built service on each Node
      'test/docs/bench-smoke.test.ts', // benches, some on PostgreSQL only
      'test/scale/cluster.test.ts',
      'test/mcp/core-tools.test.ts',
    ]) {
      expect(free.has(f), f).toBe(false);
    }
  });

  it('is a minority of the suite (a rule that drifted would leave out half of it)', () => {
    expect(free.size).toBeGreaterThan(30);
    expect(free.size).toBeLessThan(100);
  });
});
