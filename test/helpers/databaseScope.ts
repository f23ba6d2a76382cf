// Which test files reach a database. `TEST_SCOPE=database` (CI's PostgreSQL run, .ci/run) runs only those:
// a file that never opens a database runs the same on either path, so the PGlite run covering it is enough.
// A file reaches a database when its value imports (test helpers, src, workers, followed transitively) reach
// src/store/, or when a test file among them starts something that opens one itself (names DATABASE_URL,
// the built service or a bench). test/architecture/database-scope.test.ts holds the rule to known files.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { importsOf } from '../architecture/importGraph.js';

/** Text in a test file that means it opens a database without importing src/store. */
const STARTS_A_DATABASE = /DATABASE_URL|dist\/src\/main|dist\/bench|src\/main\.js/;

/** Repository-relative paths of the test files that never reach a database. */
export function databaseFreeTests(root: string): string[] {
  const files = execSync("git ls-files --cached --others --exclude-standard 'src/**/*.ts' 'workers/**/*.ts' 'test/**/*.ts' 'bench/**/*.ts'", { cwd: root, encoding: 'utf8' })
    .trim()
    .split('\n');
  const known = new Set(files);
  const text = new Map<string, string>();
  const read = (f: string) => text.get(f) ?? (text.set(f, readFileSync(resolve(root, f), 'utf8')), text.get(f)!);
  const valueImports = (f: string) => importsOf(f, read(f), known, root).filter((e) => e.value).map((e) => e.to);
  const reaches = (start: string): boolean => {
    const seen = new Set([start]);
    const stack = [start];
    while (stack.length) {
      const f = stack.pop()!;
      if (f.startsWith('src/store/') || (f.startsWith('test/') && STARTS_A_DATABASE.test(read(f)))) return true;
      for (const to of valueImports(f)) if (!seen.has(to)) (seen.add(to), stack.push(to));
    }
    return false;
  };
  return files.filter((f) => f.endsWith('.test.ts') && !reaches(f));
}
