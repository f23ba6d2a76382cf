import type { PGliteOptions } from '@electric-sql/pglite';

/**
 * PGlite's PostgreSQL settings for an embedded default (docs/memory.md). PostgreSQL's own defaults size a
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
