// TEST_SCOPE=database (test/helpers/databaseScope.ts) leaves out of CI's PostgreSQL run only files that run the
// same on either database path: checked here on files whose side is known, both ways.
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/lib/root.js';
import { pathIndependentTests } from '../helpers/databaseScope.js';

const same = new Set(pathIndependentTests(packageRoot()));

describe('database scope of the test files', () => {
  it('leaves out engine, source-only and PGlite-only files', () => {
    for (const f of ['test/text/parse.test.ts', 'test/code/languages.test.ts', 'test/mcp/direct.test.ts', 'test/architecture/boundaries.test.ts', 'test/store/pgliteThread.test.ts']) {
      expect(same.has(f), f).toBe(true);
    }
  });

  it('keeps files that start a test server, open the configured database, or start the built service or a bench', () => {
    for (const f of [
      'test/server/compress.test.ts', // test servers (test/helpers/server.ts)
      'test/store/dataDirLock.test.ts',
      'test/runtime/runtimes.test.ts', // the built service on each Node
      'test/docs/bench-smoke.test.ts', // benches, some on PostgreSQL only
      'test/scale/cluster.test.ts',
      'test/mcp/core-tools.test.ts',
      'test/reliability/fuzz.test.ts',
    ]) {
      expect(same.has(f), f).toBe(false);
    }
  });

  it('leaves out a minority of the suite (a rule that drifted would leave out most of it)', () => {
    expect(same.size).toBeGreaterThan(30);
    expect(same.size).toBeLessThan(100);
  });
});
