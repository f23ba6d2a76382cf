// Which test files run differently on the two database paths. `TEST_SCOPE=database` (CI's PostgreSQL run,
// .ci/run) runs only those: a file in which nothing reads DATABASE_URL runs the same on either path (engines,
// parsers, source checks, and PGlite's own tests), so the PGlite run covering it is enough.
// A file depends on the path when a module among its value imports (test helpers, src, workers, bench,
// followed transitively) names DATABASE_URL, or starts the built service or a bench (whose process reads it).
// test/architecture/database-scope.test.ts holds the rule to files whose side is known.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { importsOf } from '../architecture/importGraph.js';

/** Text in a module that means the path can change what it does. */
const READS_THE_PATH = new RegExp(['DATABASE', 'URL'].join('_') + String.raw`|dist/src/main|dist/bench|src/main\.js`);

/** Repository-relative paths of the test files that run the same on either database path. */
export function pathIndependentTests(root: string): string[] {
  const files = execSync("git ls-files --cached --others --exclude-standard 'src/**/*.ts' 'workers/**/*.ts' 'test/**/*.ts' 'bench/**/*.ts' 'scripts/**/*.ts'", {
    cwd: root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n');
  const known = new Set(files);
  const text = new Map<string, string>();
  const read = (f: string) => text.get(f) ?? (text.set(f, readFileSync(resolve(root, f), 'utf8')), text.get(f)!);
  const valueImports = (f: string) => importsOf(f, read(f), known, root).filter((e) => e.value).map((e) => e.to);
  const dependsOnPath = (start: string): boolean => {
    const seen = new Set([start]);
    const stack = [start];
    while (stack.length) {
      const f = stack.pop()!;
      if (READS_THE_PATH.test(read(f))) return true;
      for (const to of valueImports(f)) if (!seen.has(to)) (seen.add(to), stack.push(to));
    }
    return false;
  };
  return files.filter((f) => f.endsWith('.test.ts') && !dependsOnPath(f));
}
