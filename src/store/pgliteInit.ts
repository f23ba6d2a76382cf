// Makes a new PGlite cluster in a data folder, then exits: run as a child process by makeCluster, since
// initdb leaves PGlite's WebAssembly heap (and the process's allocator) about 700 MB larger for good.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_OPTIONS } from './pgliteSettings.js';

const dataDir = process.argv[2]!;
mkdirSync(dataDir, { recursive: true });
const pg = new PGlite(dataDir, PGLITE_OPTIONS);
await pg.waitReady;
await pg.close();
