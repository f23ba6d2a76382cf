// Issue 48: CommonJS read as imports and exports. `require(...)` lines are import lines (kept, listed in
// `imports`, resolved to files like ES imports, so the structural graph has edges between files) and
// `module.exports` / `exports.x` say what is public. Before, `/v1/compress-code/structural` over
// ws/lib kept 0 of its require lines and every file's `file_imports` was empty.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile, compressCode, compressStructural } from './helpers.js';

const WS = resolve(process.cwd(), 'node_modules/ws/lib');

describe.skipIf(!existsSync(WS))('ws/lib through the structural path', () => {
  const files = readdirSync(WS)
    .filter((n) => n.endsWith('.js'))
    .sort()
    .map((n) => ({ path: `lib/${n}`, content: readFileSync(join(WS, n), 'utf8') }));
  const r = compressStructural({ files });

  it('keeps every require line of the files it shows (before: 0 of them)', () => {
    let lines = 0;
    for (const f of files) {
      if (!r.output.includes(`--- ${f.path} ---`)) continue;
      // One statement per require: `const { a, b } = require('./x');` spans lines; its last line names the module.
      for (const line of f.content.split('\n').filter((l) => l.includes('require(')).map((l) => l.trim())) {
        expect(r.output, `${f.path}: ${line}`).toContain(line);
        lines++;
      }
    }
    expect(lines).toBeGreaterThanOrEqual(45);
  });

  it('resolves relative requires to files, so the graph has edges between files (before: none)', () => {
    const receiver = r.file_imports.find((f) => f.path === 'lib/receiver.js')!;
    expect(receiver.resolved.sort()).toEqual(['lib/buffer-util.js', 'lib/constants.js', 'lib/permessage-deflate.js', 'lib/validation.js']);
    // `require('stream')` is Node's module, not lib/stream.js.
    expect(receiver.unresolved).toEqual(['stream']);
    const edges = r.file_imports.reduce((n, f) => n + f.resolved.length, 0);
    expect(edges).toBeGreaterThanOrEqual(25);
    // An optional accelerator required inside `if`/`try` is a dependency too.
    expect(r.file_imports.find((f) => f.path === 'lib/buffer-util.js')!.unresolved).toContain('bufferutil');
  });

  it('a call into another file through a require is an edge of the unit graph', () => {
    const focus = compressStructural({ files, focus_symbols: ['lib/buffer-util.js:concat'] });
    const dependents = focus.blast_radius!.dependents.filter((d) => d.path === 'lib/receiver.js').map((d) => d.name);
    expect(dependents).toContain('Receiver.dataMessage');
  });

  it('shows class Receiver above its methods', () => {
    const at = r.output.indexOf('class Receiver extends Writable {');
    expect(at).toBeGreaterThan(0);
    expect(r.output.indexOf('  consume(n)', at)).toBeGreaterThan(at);
  });
});

const CJS = `'use strict';

const fs = require('fs');
const { join, dirname: dir } = require('path');
const parse = require('./parse').parse;
const debug = require('debug')('app');
require('./polyfill');

function load(file) {
  const yaml = require('yaml');
  return parse(fs.readFileSync(join(dir(file), file), 'utf8'), yaml);
}

function helper(x) {
  return x * 2;
}

module.exports = { load, twice: helper };
`;

describe('CommonJS in one file', () => {
  it('reads each require form as an import, naming what it binds', () => {
    const r = compressCode({ code: CJS, filename: 'config.js', fidelity: 'outline' });
    expect(r.imports.map((i) => [i.module, i.names])).toEqual([
      ['fs', ['fs']],
      ['path', ['join', 'dirname']],
      ['./parse', ['parse']],
      ['debug', ['debug']],
      ['./polyfill', []],
      ['yaml', []],
    ]);
    for (const line of ["const fs = require('fs');", "const { join, dirname: dir } = require('path');", "const debug = require('debug')('app');", "require('./polyfill');"]) {
      expect(r.skeleton).toContain(line);
    }
    expect(r.skeleton).not.toContain("require('yaml')");
  });

  it('module.exports names the public units; other top-level functions are private', () => {
    const a = analyzeFile({ path: 'config.js', content: CJS });
    expect(a.units.map((u) => [u.name, u.exported])).toEqual([
      ['load', true],
      ['helper', true],
    ]);
    const priv = analyzeFile({ path: 'x.js', content: 'function a() {\n  return b();\n}\nfunction b() {\n  return 1;\n}\nmodule.exports = a;\n' });
    expect(priv.units.map((u) => [u.name, u.exported])).toEqual([
      ['a', true],
      ['b', false],
    ]);
    // A script without CommonJS exports keeps its whole top level as its API.
    expect(analyzeFile({ path: 's.js', content: 'function a() {\n  return 1;\n}\n' }).units[0]!.exported).toBe(true);
  });

  it('resolves a relative require and reaches the required file\'s export by name', () => {
    const files = [
      { path: 'src/parse.js', content: 'function parse(text) {\n  return JSON.parse(text);\n}\nfunction internal() {\n  return 0;\n}\nmodule.exports = { parse };\n' },
      { path: 'src/config.js', content: CJS },
    ];
    const r = compressStructural({ files, focus_symbols: ['src/parse.js:parse'] });
    expect(r.file_imports.find((f) => f.path === 'src/config.js')!.resolved).toEqual(['src/parse.js']);
    expect(r.blast_radius!.dependents.map((d) => d.name)).toContain('load');
  });
});
