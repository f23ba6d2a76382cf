// npm run build: type-check both configs and emit dist/ with TypeScript 7 (native compiler, devDependency
// `typescript7` = npm:typescript@7). The `typescript` devDependency stays 5.9 for its compiler API
// (bench/codeintel/oracle.ts); it builds instead where 7 has no binary for this platform, or with BUILD_TSC=5.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const configs = ['tsconfig.json', 'test/tsconfig.json'];

function native() {
  // Same lookup as typescript@7's own bin (lib/getExePath.js), which is not exported.
  const platformPkg = `@typescript/typescript-${process.platform}-${process.arch}`;
  try {
    const fromTs7 = createRequire(require.resolve('typescript7/package.json'));
    const exe = join(dirname(fromTs7.resolve(`${platformPkg}/package.json`)), 'lib', process.platform === 'win32' ? 'tsc.exe' : 'tsc');
    return existsSync(exe) ? { cmd: exe, args: [], name: 'TypeScript 7' } : { missing: exe };
  } catch {
    return { missing: `typescript7 or ${platformPkg}` };
  }
}

let tsc = process.env.BUILD_TSC === '5' ? { missing: '' } : native();
if (tsc.missing !== undefined) {
  if (tsc.missing) console.error(`build: no TypeScript 7 binary (${tsc.missing} missing); building with tsc 5.9 instead, about 3x the CPU time.`);
  tsc = { cmd: process.execPath, args: [require.resolve('typescript/bin/tsc')], name: 'tsc 5.9' };
}
for (const config of configs) {
  const r = spawnSync(tsc.cmd, [...tsc.args, '-p', config], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build: ${tsc.name} -p ${config} failed${r.error ? `: ${r.error.message}` : ''}`);
    process.exit(r.status || 1);
  }
}

// The byte-pair rank tables as flat files (dist/data/bpe/), read at start instead of building them from
// the tokenizer library's modules in every thread (workers/shared/tokenTables.ts, docs/resident-memory.md).
const tablesModule = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'workers', 'shared', 'tokenTables.js')).href;
const tables = spawnSync(process.execPath, ['--input-type=module', '-e', `(await import(${JSON.stringify(tablesModule)})).writeTokenTableFiles();`], { stdio: 'inherit' });
if (tables.status !== 0) {
  console.error('build: writing the byte-pair rank tables failed');
  process.exit(tables.status || 1);
}
