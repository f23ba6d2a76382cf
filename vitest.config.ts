import { configDefaults, defineConfig } from 'vitest/config';
import { pathIndependentTests } from './test/helpers/databaseScope.js';

// TEST_SCOPE=database: only the files whose run depends on the database path (CI's second run, on PostgreSQL;
// the first, on PGlite, runs everything). Unset: every file.
const scope = process.env.TEST_SCOPE || undefined;
if (scope !== undefined && scope !== 'database') throw new Error(`TEST_SCOPE must be unset or "database", not "${scope}"`);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(scope === 'database' ? pathIndependentTests(import.meta.dirname) : [])],
    // A migrated database made once per run; every test server starts from a copy of it.
    globalSetup: ['test/helpers/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    // One process for every file: re-importing the app per file cost 1.6-2 s each (~250 s a run).
    // Test files must leave no process-wide state behind (env, swapped dumps, cached loaders).
    isolate: false,
    // Every REST route's JSON success body is checked against its declared response schema (src/http/route.ts).
    env: { RESPONSE_CHECK: '1' },
  },
});
