import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PGliteOptions } from '@electric-sql/pglite';
import { packageRoot } from '../lib/root.js';

/**
 * PGlite's PostgreSQL settings for an embedded default (docs/resident-memory.md). PostgreSQL's own defaults size a
 * server: 128 MB of shared buffers, which PGlite holds in its WebAssembly heap (about 300 MB resident for
 * an opened database, 166 MB with these). Its files still go through the operating system's page cache,
 * so the smaller buffers cost little for this service's small statements; durability settings are untouched.
 */
const MEMORY_SETTINGS = ['shared_buffers=16MB', 'maintenance_work_mem=16MB', 'temp_buffers=2MB'];

/** PGlite's own start parameters (single-user mode, no parallel workers …) plus the memory settings above. */
const PGLITE_DEFAULTS = [
  '--single', '-F', '-O', '-j', '-c', 'search_path=public', '-c', 'exit_on_error=false', '-c', 'log_checkpoints=false',
  '-c', 'max_worker_processes=0', '-c', 'max_parallel_workers=0', '-c', 'max_parallel_workers_per_gather=0', '-c', 'io_method=sync',
  '-c', 'max_parallel_maintenance_workers=0',
];

export const PGLITE_OPTIONS: Pick<PGliteOptions, 'startParams'> = {
  startParams: [...PGLITE_DEFAULTS, ...MEMORY_SETTINGS.flatMap((s) => ['-c', s])],
};

/**
 * A data folder without a cluster gets one from a short-lived process (pgliteInit.ts): initdb grows
 * PGlite's heap to about 700 MB, and neither a thread's end nor the allocator gives all of it back.
 */
export async function makeClusterIfNew(dataDir: string): Promise<void> {
  if (dataDir === 'memory://' || existsSync(join(dataDir, 'PG_VERSION'))) return;
  const child = spawn(process.execPath, [join(packageRoot(), 'dist', 'src', 'store', 'pgliteInit.js'), dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()).slice(-4000));
  const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('exit', resolve));
  if (code !== 0) throw new Error(`Creating the embedded database in ${dataDir} failed (exit ${code}): ${stderr.trim().slice(-2000)}`);
}
