#!/usr/bin/env node
// Install-time fixes to dependencies whose upstream fix is not released yet (docs/dependencies.md).
// Each patch is a literal replacement, applied only where its "before" text is found, so it is
// idempotent and turns itself off once a release carries the fix (the script then says so).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** postgres.js 3.4.x: nextWrite() on a connection whose socket closed() has nulled throws from an
 *  Immediate or the 'data' handler, an uncaught TypeError that exits the process. Settle the
 *  connection's queries with CONNECTION_CLOSED instead (porsager/postgres#1208, PRs #1168/#1209). */
const postgresNextWrite = {
  name: 'postgres: nextWrite on a closed socket',
  files: ['node_modules/postgres/src/connection.js', 'node_modules/postgres/cjs/src/connection.js'],
  before: '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
  after:
    '  function nextWrite(fn) {\n' +
    '    if (!socket) { // patched by scripts/patches/apply.mjs (porsager/postgres#1208)\n' +
    '      chunk = nextWriteTimer = null\n' +
    "      error(Errors.connection('CONNECTION_CLOSED', options))\n" +
    '      return false\n' +
    '    }\n' +
    '    const x = socket.write(chunk, fn)',
};

const patches = [postgresNextWrite];

for (const patch of patches) {
  for (const rel of patch.files) {
    const file = join(root, rel);
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    if (text.includes(patch.after)) continue;
    if (!text.includes(patch.before)) {
      console.warn(`patches: ${patch.name}: ${rel} no longer has the unpatched code; check whether the release fixed it`);
      continue;
    }
    writeFileSync(file, text.replace(patch.before, patch.after));
    console.log(`patches: ${patch.name}: applied to ${rel}`);
  }
}
