// scripts/patches/apply.mjs fails the install when a patch cannot apply to the version it was written for.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/lib/root.js';

const root = packageRoot();
const script = join(root, 'scripts', 'patches', 'apply.mjs');
const dirs: string[] = [];

/** A temp root holding a copy of the installed postgres package (already patched by the install). */
function copyOfPostgres(): string {
  const dir = mkdtempSync(join(tmpdir(), 'patches-'));
  dirs.push(dir);
  cpSync(join(root, 'node_modules', 'postgres'), join(dir, 'node_modules', 'postgres'), { recursive: true });
  return dir;
}
const run = (dir: string) => spawnSync(process.execPath, [script, dir], { encoding: 'utf8' });

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('scripts/patches/apply.mjs', () => {
  it('passes on the pinned, already patched package and leaves it unchanged', () => {
    const dir = copyOfPostgres();
    const file = join(dir, 'node_modules', 'postgres', 'src', 'connection.js');
    const before = readFileSync(file, 'utf8');
    const result = run(dir);
    expect(result.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('fails the install with a clear message when the text it replaces is missing', () => {
    const dir = copyOfPostgres();
    const file = join(dir, 'node_modules', 'postgres', 'src', 'connection.js');
    // Neither the unpatched nor the patched nextWrite: as if a release had rewritten it.
    const text = readFileSync(file, 'utf8').replace(/function nextWrite\(fn\) \{/, 'function nextWriteRewritten(fn) {');
    writeFileSync(file, text);
    const result = run(dir);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('postgres: nextWrite on a closed socket: node_modules/postgres/src/connection.js does not have the code this patch replaces');
    expect(result.stderr).toContain('install stopped');
  });

  it('fails when the installed version is not the one the patches were written for', () => {
    const dir = copyOfPostgres();
    const manifest = join(dir, 'node_modules', 'postgres', 'package.json');
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    const pinned = pkg.version;
    writeFileSync(manifest, JSON.stringify({ ...pkg, version: '3.5.0' }));
    const result = run(dir);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`written for postgres ${pinned}, but 3.5.0 is installed`);
  });

  it('pins postgres in package.json to the version the patches were written for', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(readFileSync(script, 'utf8')).toContain(`version: '${pkg.dependencies.postgres}'`);
  });
});
