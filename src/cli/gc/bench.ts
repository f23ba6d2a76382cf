// `gc bench [NAME] [-- ARGS]`: runs one of the project's benchmarks (bench/<name>/run.ts, built to dist).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT, printJson, type GlobalOptions } from './common.js';

/** dist/src/cli/gc/bench.js → dist/bench */
const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../bench');

export function benchmarks(): string[] {
  if (!existsSync(BENCH_DIR)) return [];
  return readdirSync(BENCH_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(BENCH_DIR, d.name, 'run.js')))
    .map((d) => d.name)
    .sort();
}

export async function benchCommand(name: string | undefined, args: string[], opts: { list?: boolean }, global: GlobalOptions): Promise<number> {
  const names = benchmarks();
  if (opts.list || !name) {
    if (global.json) printJson({ benchmarks: names });
    else process.stdout.write(names.join('\n') + '\n');
    return name || opts.list ? EXIT.ok : EXIT.usage;
  }
  if (!names.includes(name)) throw new CliError(`unknown benchmark '${name}'; one of: ${names.join(', ')}`, EXIT.usage);
  const child = spawn(process.execPath, [join(BENCH_DIR, name, 'run.js'), ...args], { stdio: 'inherit' });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? EXIT.failure : EXIT.ok))));
}
