// The layering rules of docs/architecture.md, checked on the source: a new file that breaks one fails here.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/lib/root.js';

const root = packageRoot();
const sources = execSync("git ls-files 'src/*.ts' 'src/**/*.ts' 'workers/*.ts' 'workers/**/*.ts'", { cwd: root, encoding: 'utf8' })
  .trim()
  .split('\n')
  .filter((f) => existsSync(resolve(root, f)));
const text = new Map(sources.map((f) => [f, readFileSync(resolve(root, f), 'utf8')]));

/** Value imports (static and dynamic) between our own modules; `import type` carries no run-time edge. */
function importsOf(file: string): string[] {
  const src = text.get(file)!;
  const specs = [
    ...[...src.matchAll(/^import\s+(?!type\s)[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map((m) => m[1]!),
    ...[...src.matchAll(/^import\s+'(\.[^']+)'/gm)].map((m) => m[1]!),
    ...[...src.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1]!),
  ];
  return specs
    .map((s) => relative(root, resolve(root, dirname(file), s.replace(/\.js$/, '.ts'))))
    .filter((f) => text.has(f));
}

describe('architecture boundaries', () => {
  it('has no import cycles between our modules (dynamic imports included)', () => {
    const graph = new Map(sources.map((f) => [f, importsOf(f)]));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (f: string) => {
      state.set(f, 'open');
      stack.push(f);
      for (const d of graph.get(f) ?? []) {
        if (state.get(d) === 'open') cycles.push([...stack.slice(stack.indexOf(d)), d].join(' -> '));
        else if (!state.has(d)) visit(d);
      }
      stack.pop();
      state.set(f, 'done');
    };
    for (const f of sources) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it('reaches the compute pool only through the domain layer (src/domain/compute.ts)', () => {
    const direct = sources.filter((f) => f.startsWith('src/') && f !== 'src/domain/compute.ts' && /\bpool\.run\(/.test(text.get(f)!));
    expect(direct).toEqual([]);
  });

  it('keeps HTTP out of the domain: use cases throw DomainErrors, never HttpErrors', () => {
    const leaks = sources.filter((f) => f.startsWith('src/domain/') && /from '[./]+\/http\//.test(text.get(f)!));
    expect(leaks).toEqual([]);
  });

  it('keeps the workers free of host code', () => {
    const leaks = sources.filter((f) => f.startsWith('workers/') && importsOf(f).some((d) => d.startsWith('src/')));
    expect(leaks).toEqual([]);
  });
});
