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

// A file is patched whole or not at all: every edit's "before" must be there, or every "after".
for (const patch of patches) {
  for (const rel of patch.files) {
    const file = join(root, rel);
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    if (patch.edits.every((e) => text.includes(e.after))) continue;
    if (!patch.edits.every((e) => text.includes(e.before))) {
      console.warn(`patches: ${patch.name}: ${rel} no longer has the unpatched code; check whether the release fixed it`);
      continue;
    }
    writeFileSync(file, patch.edits.reduce((t, e) => t.replace(e.before, e.after), text));
    console.log(`patches: ${patch.name}: applied to ${rel}`);
  }
}
