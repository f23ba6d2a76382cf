#!/usr/bin/env node
// Install-time fixes to dependencies whose upstream fix is not released yet (docs/dependencies.md).
// Each patch is a literal replacement for one exact version of its package (pinned in package.json).
// It is idempotent (an already patched file is left alone); when the installed version is not the one
// it was written for, or its "before" text is missing, the install fails rather than run unpatched.
// Usage: node scripts/patches/apply.mjs [root]   (root: the directory holding node_modules; tests pass a copy)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** postgres.js 3.4.x: nextWrite() on a connection whose socket closed() has nulled throws from an
 *  Immediate or the 'data' handler, an uncaught TypeError that exits the process. Settle the
 *  connection's queries with CONNECTION_CLOSED instead (porsager/postgres#1208, PRs #1168/#1209). */
const postgresNextWrite = {
  package: 'postgres',
  version: '3.4.9',
  name: 'postgres: nextWrite on a closed socket',
  files: ['node_modules/postgres/src/connection.js', 'node_modules/postgres/cjs/src/connection.js'],
  edits: [{
    before: '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
    after:
      '  function nextWrite(fn) {\n' +
      '    if (!socket) { // patched by scripts/patches/apply.mjs (porsager/postgres#1208)\n' +
      '      chunk = nextWriteTimer = null\n' +
      "      error(Errors.connection('CONNECTION_CLOSED', options))\n" +
      '      return false\n' +
      '    }\n' +
      '    const x = socket.write(chunk, fn)',
  }],
};

/** postgres.js 3.4.x: closed() rejects the running query but leaves it, its partial result and any
 *  error response in place, so the first ReadyForQuery on the reconnected socket settles that stale
 *  state and can hand the new query the old backend's error. Forget it once the socket is gone
 *  (porsager/postgres#1216). */
const postgresForgetOnClose = {
  package: 'postgres',
  version: '3.4.9',
  name: 'postgres: forget the query state of a closed socket',
  files: ['node_modules/postgres/src/connection.js', 'node_modules/postgres/cjs/src/connection.js'],
  edits: [{
    before:
      '    if (initial)\n      return reconnect()\n\n' +
      "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n",
    after:
      '    if (initial)\n      return (forget(), reconnect())\n\n' +
      "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n" +
      '    forget()\n',
  }, {
    before: '  /* Handlers */\n',
    after:
      '  function forget() { // patched by scripts/patches/apply.mjs (porsager/postgres#1216)\n' +
      '    query = results = errorResponse = chunk = null\n' +
      '    result = new Result()\n' +
      '    rows = 0\n' +
      '  }\n\n' +
      '  /* Handlers */\n',
  }],
};

/** postgres.js 3.4.x: when a transaction's connection closes, begin() rejects but its callback runs
 *  on. Its later queries, and its rollback, then run on the reconnected socket outside any
 *  transaction, interleaved with the pool's next query, which can receive their rows; queries it had
 *  queued never settle. Reject them all with the close error (porsager/postgres#1216, #1186). */
const postgresTransactionClosed = {
  package: 'postgres',
  version: '3.4.9',
  name: 'postgres: a transaction whose connection closed rejects its later queries',
  files: ['node_modules/postgres/src/index.js', 'node_modules/postgres/cjs/src/index.js'],
  edits: [{
    before: '    let savepoints = 0\n      , connection\n      , prepare = null\n',
    after: '    let savepoints = 0\n      , connection\n      , prepare = null\n      , closedError = null // patched by scripts/patches/apply.mjs\n',
  }, {
    before: '        new Promise((_, reject) => connection.onclose = reject)\n',
    after:
      '        new Promise((_, reject) => connection.onclose = (e) => { // patched by scripts/patches/apply.mjs (porsager/postgres#1216)\n' +
      '          closedError = e\n' +
      '          while (queries.length) queries.shift().reject(e)\n' +
      '          reject(e)\n' +
      '        })\n',
  }, {
    before: '        q.catch(e => uncaughtError || (uncaughtError = e))\n',
    after:
      '        q.catch(e => uncaughtError || (uncaughtError = e))\n' +
      '        if (closedError) return q.reject(closedError) // patched by scripts/patches/apply.mjs\n',
  }],
};

const patches = [postgresNextWrite, postgresForgetOnClose, postgresTransactionClosed];

/** Why `patch` cannot be applied to the file at `rel`, or null when it is (or already was) applied. */
function apply(patch, rel) {
  const file = join(root, rel);
  if (!existsSync(file)) return `${rel} is missing`;
  const text = readFileSync(file, 'utf8');
  if (patch.edits.every((e) => text.includes(e.after))) return null;
  // A file is patched whole or not at all: every edit's "before" must be there, or every "after".
  if (!patch.edits.every((e) => text.includes(e.before))) return `${rel} does not have the code this patch replaces`;
  writeFileSync(file, patch.edits.reduce((t, e) => t.replace(e.before, e.after), text));
  console.log(`patches: ${patch.name}: applied to ${rel}`);
  return null;
}

const failures = [];
for (const patch of patches) {
  const manifest = join(root, 'node_modules', patch.package, 'package.json');
  if (!existsSync(manifest)) continue; // not installed (a partial install); nothing to patch
  const installed = JSON.parse(readFileSync(manifest, 'utf8')).version;
  if (installed !== patch.version) {
    failures.push(`${patch.name}: written for ${patch.package} ${patch.version}, but ${installed} is installed`);
    continue;
  }
  for (const rel of patch.files) {
    const why = apply(patch, rel);
    if (why) failures.push(`${patch.name}: ${why}`);
  }
}
if (failures.length > 0) {
  for (const f of failures) console.error(`patches: cannot apply ${f}`);
  console.error('patches: install stopped. Pin the version the patches were written for in package.json, or check whether the release fixed the bug and update scripts/patches/apply.mjs (docs/dependencies.md).');
  process.exit(1);
}
