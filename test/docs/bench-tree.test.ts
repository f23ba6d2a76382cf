// Benches print their results and write a tracked file only when asked (--write-docs): a user who runs one
// and then `npm test` finds the checkout as it was. Every file write under bench/ is either one of the two
// gated writers or listed here with where it writes (a temporary folder, a path the caller names).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/lib/root.js';

const root = packageRoot();
const GATED = ['bench/lib/writeDocs.ts', 'bench/quality/docfile.ts'];
/** Writes that never touch the checkout: file → what the written path is. */
const ELSEWHERE: Record<string, string> = {
  'bench/code/run.ts': 'corpus files materialised under a mkdtemp folder',
  'bench/codeintel/run.ts': 'a helper script beside a tmpdir() file',
  'bench/codeintel/oracle.ts': 'BENCH_ORACLE_DUMP, a path the caller names',
  'bench/codeintel/incremental.ts': 'BENCH_CACHE, a path the caller names',
  'bench/detect/run.ts': 'docs/detection.md, only under --write-docs (WRITE)',
};

function benchFiles(dir = join(root, 'bench')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? benchFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [relative(root, join(dir, e.name))] : [],
  );
}

describe('benches leave the checkout as it was', () => {
  it('write files only through the --write-docs writers or to places outside the checkout', () => {
    const writers = benchFiles().filter((f) => /\b(writeFileSync|appendFileSync|createWriteStream|writeFile)\(/.test(readFileSync(join(root, f), 'utf8')));
    expect(writers.length).toBeGreaterThan(0);
    const unexplained = writers.filter((f) => !GATED.includes(f) && !(f in ELSEWHERE));
    expect(unexplained, 'a bench writes a file: use bench/lib/writeDocs.ts (--write-docs) or a temporary folder, and list it here').toEqual([]);
  });

  it('the gated writers write only under --write-docs', () => {
    for (const f of [...GATED, 'bench/detect/run.ts']) expect(readFileSync(join(root, f), 'utf8'), f).toMatch(/argv\.includes\('--write-docs'\)/);
    expect(readFileSync(join(root, 'bench/code/run.ts'), 'utf8')).toMatch(/writeTrackedFile\(/);
    expect(readFileSync(join(root, 'bench/code/run.ts'), 'utf8')).not.toMatch(/writeFileSync\(join\(repoRoot/);
  });
});
