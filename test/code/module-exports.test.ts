// A module's exports stay in its skeleton: CommonJS `module.exports` / `exports.x` assignments (much of
// npm) and ES export lists, re-exports and default values; and a `/** … */` doc one blank line above a
// function is its doc (jshttp and express style). Before, outline and balanced dropped every export
// line that was not a declaration (a barrel file came back empty) and every such doc.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile, compressCode } from './helpers.js';

const CODE = readFileSync(resolve(process.cwd(), 'test/code/fixtures/commonjs.js'), 'utf8');
const skeleton = (fidelity: 'outline' | 'balanced' | 'detailed') => compressCode({ code: CODE, filename: 'header-tools.js', fidelity }).skeleton;

describe('CommonJS skeletons', () => {
  it('keep the export statements at outline and above', () => {
    for (const fidelity of ['outline', 'balanced', 'detailed'] as const) {
      const out = skeleton(fidelity);
      expect(out, fidelity).toContain('module.exports = parseHeader\n');
      expect(out, fidelity).toContain('module.exports.format = format\n');
      // An object of names is the export list: kept whole.
      expect(out, fidelity).toContain('module.exports.helpers = { unquote, tokenize: exports.tokenize }');
    }
  });

  it('an exported function is a unit with its signature kept and its body elided; other multi-line values are elided', () => {
    const r = compressCode({ code: CODE, filename: 'header-tools.js', fidelity: 'outline' });
    expect(r.skeleton).toContain('exports.tokenize = function tokenize (text, options) { … }');
    expect(r.skeleton).not.toContain('tokens.push(');
    expect(r.skeleton).toContain('exports.defaults = …');
    expect(r.skeleton).not.toContain('limits: { params: 64');
    expect(r.importance.map((u) => u.name)).toEqual(expect.arrayContaining(['tokenize', 'parseHeader', 'format', 'unquote']));
  });

  it('a /** doc one blank line above a function is its doc, cut to its first lines; a plain comment is not', () => {
    // The unbudgeted balanced rendering: compressCode's balanced (20%) has room for one of the two docs here.
    const out = analyzeFile({ path: 'header-tools.js', content: CODE }).skeleton;
    expect(out).toContain('Parse a header value into its type and parameters.');
    expect(out).toContain('Format an object back into a header value.');
    expect(out).not.toContain('A plain comment a blank line above');
    expect(out).not.toContain('MIT Licensed');
    expect(skeleton('outline')).not.toContain('Parse a header value');
    expect(skeleton('detailed')).toContain('Parse a header value into its type and parameters.');
    expect(skeleton('detailed')).toContain('Format an object back into a header value.');
  });
});

const ESM = `import { x } from './x.js';

function add(a: number, b: number): number {
  return (a + b) * x;
}

export { add, add as plus };
export * from './y.js';
export type { T } from './t.js';
export default async (req: Request): Promise<Response> => {
  const body = await req.json();
  return Response.json(body);
};
`;

describe('ES module skeletons', () => {
  it('keep export lists, re-exports and the default export; a default function is a unit with its body elided', () => {
    const r = compressCode({ code: ESM, filename: 'index.ts', fidelity: 'outline' });
    for (const line of ['export { add, add as plus };', "export * from './y.js';", "export type { T } from './t.js';", 'export default async (req: Request): Promise<Response> => { … };']) {
      expect(r.skeleton).toContain(line);
    }
    expect(r.skeleton).not.toContain('req.json()');
    expect(r.importance.map((u) => u.name)).toContain('default');
  });

  it('a re-export is a dependency of the file, like an import', () => {
    const r = compressCode({ code: ESM, filename: 'index.ts', fidelity: 'outline' });
    expect(r.imports.map((i) => i.module)).toEqual(['./x.js', './y.js', './t.js']);
  });

  it('a barrel file of re-exports keeps all of them', () => {
    const barrel = "export * from './a.js';\nexport { b, c } from './b.js';\nexport * as d from './d.js';\n";
    expect(compressCode({ code: barrel, filename: 'index.ts', fidelity: 'balanced' }).skeleton.trim()).toBe(barrel.trim());
  });
});

const COMPONENT = readFileSync(resolve(process.cwd(), 'test/code/fixtures/component.js'), 'utf8');

describe('objects of functions', () => {
  it('an exported object literal is laid out like a class: each function a unit with its body elided', () => {
    for (const fidelity of ['outline', 'balanced', 'detailed'] as const) {
      const r = compressCode({ code: COMPONENT, filename: 'CartWidget.js', fidelity });
      // Detailed has the budget to keep a short body or two; the signatures are there at every level.
      expect(r.skeleton, fidelity).toContain("  name: 'CartWidget',");
      for (const line of ['  data() {', '    total() {', "    'item-count': function () {", '    async applyCoupon(code) {', '    clear: () => {', '  money(amount, currency) {', '  percent: (value) => {']) {
        expect(r.skeleton, fidelity).toContain(fidelity === 'detailed' ? line : `${line} … },`);
      }
      expect(r.skeleton, fidelity).toContain('  props: …,');
      expect(r.skeleton, fidelity).not.toContain('api.post(');
    }
    const names = compressCode({ code: COMPONENT, filename: 'CartWidget.js', fidelity: 'balanced' }).importance.map((u) => u.name);
    expect(names).toEqual(expect.arrayContaining(['default.methods.applyCoupon', 'default.computed.item-count', 'formatters.money']));
  });

  it('objects of functions nested without end are walked to a fixed depth, then elided as values', () => {
    const N = 3000;
    let code = 'export default ';
    for (let i = 0; i < N; i++) code += `{\n  m${i}() {\n    return ${i};\n  },\n  n: `;
    code += '1' + '\n}'.repeat(N) + ';\n';
    const r = compressCode({ code, filename: 'deep.js', fidelity: 'balanced' });
    expect(r.skeleton).toContain('  m8() {');
    expect(r.skeleton).toContain('  n: …\n}');
    expect(r.skeleton).not.toContain('m9()');
    expect(r.compressed_tokens).toBeLessThan(r.original_tokens / 10);
  });

  it('an object of names or plain values is unchanged: kept whole or elided as before', () => {
    const code = "const table = {\n  a: 1,\n  b: 2,\n};\nmodule.exports = {\n  table,\n  run: run,\n};\n";
    const out = compressCode({ code, filename: 't.js', fidelity: 'outline' }).skeleton;
    expect(out).toContain('const table = …;');
    expect(out).toContain('module.exports = {\n  table,\n  run: run,\n};');
  });
});

describe('Python skeletons', () => {
  it("keep __all__ whole: it is the module's export list", () => {
    const code = "'''Tools.'''\n__all__ = [\n    'dump',\n    'load',\n]\nLIMITS = {\n    'depth': 10,\n    'width': 80,\n}\n\ndef dump(obj):\n    return repr(obj)\n\ndef load(s):\n    return eval(s)\n";
    const out = compressCode({ code, filename: 'tools.py', fidelity: 'outline' }).skeleton;
    expect(out).toContain("__all__ = [\n    'dump',\n    'load',\n]");
    expect(out).toContain('LIMITS = ...'); // any other multi-line value is still elided
  });
});
