/**
 * CommonJS read as imports and exports: `const x = require('./x')` is an import like `import x from
 * './x'` (a kept line, a graph edge between files), and `module.exports = …` / `exports.name = …`
 * name what the module makes public. Until 2026-12-03 neither was read: a CommonJS file had no
 * imports (the structural output kept 0 of ws's 47 `require` lines and its graph had no edges between
 * files), and every top-level definition of it counted as public.
 */
import type { SyntaxNode } from './parse.js';
import type { ImportInfo } from './types.js';

/** `module.exports`, `module.exports.name`, `exports.name`: the name, or null for the module itself. */
const COMMONJS_TARGET = /^(?:module\.exports|exports)(?:\.([A-Za-z_$][\w$]*))?$/;

/** The assignment of a CommonJS export statement (`module.exports.x = …`), else null. */
export function commonJsExport(node: SyntaxNode): { assignment: SyntaxNode; name: string | null } | null {
  if (node.type !== 'expression_statement') return null;
  const assignment = node.firstNamedChild;
  if (assignment?.type !== 'assignment_expression') return null;
  const m = COMMONJS_TARGET.exec(assignment.childForFieldName('left')?.text ?? '');
  return m ? { assignment, name: m[1] ?? null } : null;
}

/**
 * The module a value requires: `require('x')`, `require('x').y`, `require('x')(opts)` (debug's
 * `require('debug')('ws')`), `new (require('x'))()`; with the member read off it, if any.
 */
function requiredModule(value: SyntaxNode | null): { module: string; member: string | null } | null {
  let member: string | null = null;
  for (let node = value, depth = 0; node && depth < 6; depth++) {
    switch (node.type) {
      case 'member_expression':
        member = node.childForFieldName('property')?.text ?? null;
        node = node.childForFieldName('object');
        continue;
      case 'parenthesized_expression':
      case 'await_expression':
        node = node.firstNamedChild;
        continue;
      case 'new_expression':
        node = node.childForFieldName('constructor');
        continue;
      case 'call_expression': {
        const fn = node.childForFieldName('function');
        if (fn?.type === 'identifier' && fn.text === 'require') {
          const arg = node.childForFieldName('arguments')?.firstNamedChild;
          if (arg?.type !== 'string') return null;
          const module = arg.text.slice(1, -1);
          return module ? { module, member } : null;
        }
        node = fn;
        continue;
      }
      default:
        return null;
    }
  }
  return null;
}

/** Names a declarator binds from the module: `x` of `const x = …`, `a` and `b` of `const { a, b: c } = …`. */
function boundNames(name: SyntaxNode | null): string[] {
  if (!name) return [];
  if (name.type === 'identifier') return [name.text];
  if (name.type !== 'object_pattern') return [];
  const out: string[] = [];
  for (const p of name.namedChildren) {
    if (p.type === 'shorthand_property_identifier_pattern') out.push(p.text);
    else if (p.type === 'pair_pattern') out.push(p.childForFieldName('key')?.text ?? '');
    else if (p.type === 'object_assignment_pattern') out.push(p.childForFieldName('left')?.text ?? '');
  }
  return out.filter(Boolean);
}

/**
 * The imports of a statement that requires modules: `const a = require('a')`, `var { b } =
 * require('./b')`, a bare `require('./polyfill')`. `all` says whether every declarator is one (the
 * statement is then an import line, kept verbatim), else the statement is also a declaration.
 */
export function requireImports(node: SyntaxNode): { imports: ImportInfo[]; all: boolean } | null {
  const line = node.startPosition.row + 1;
  const text = node.text;
  if (node.type === 'expression_statement') {
    const req = requiredModule(node.firstNamedChild);
    return req ? { imports: [{ module: req.module, names: req.member ? [req.member] : [], line, text }], all: true } : null;
  }
  if (node.type !== 'lexical_declaration' && node.type !== 'variable_declaration') return null;
  const imports: ImportInfo[] = [];
  let declarators = 0;
  for (const d of node.namedChildren) {
    if (d.type !== 'variable_declarator') continue;
    declarators++;
    const req = requiredModule(d.childForFieldName('value'));
    if (req) imports.push({ module: req.module, names: req.member ? [req.member] : boundNames(d.childForFieldName('name')), line, text });
  }
  return imports.length ? { imports, all: imports.length === declarators } : null;
}

/**
 * What a CommonJS module exports, by name: `module.exports = X` and `exports.y = z` name X, y and z;
 * `module.exports = { a, b: c }` names a, b and c; `exports.f = function g () {…}` names f and g.
 * Null when the file has no CommonJS export statement (a script: its top level stays its API).
 */
export function commonJsExportNames(root: SyntaxNode): Set<string> | null {
  let names: Set<string> | null = null;
  for (const node of root.namedChildren) {
    const target = commonJsExport(node);
    if (!target) continue;
    names ??= new Set();
    if (target.name) names.add(target.name);
    const value = target.assignment.childForFieldName('right');
    if (!value) continue;
    if (value.type === 'identifier') names.add(value.text);
    else if (value.childForFieldName('name')) names.add(value.childForFieldName('name')!.text);
    else if (value.type === 'object') {
      for (const p of value.namedChildren) {
        if (p.type === 'shorthand_property_identifier') names.add(p.text);
        else if (p.type === 'pair') {
          names.add(p.childForFieldName('key')?.text.replace(/^(['"`])(.*)\1$/, '$2') ?? '');
          const v = p.childForFieldName('value');
          if (v?.type === 'identifier') names.add(v.text);
        } else if (p.type === 'method_definition') names.add(p.childForFieldName('name')?.text ?? '');
      }
    }
  }
  return names;
}

/**
 * Modules required anywhere else in the file (inside `if`/`try` blocks, lazily in a function): the
 * file depends on them too. Each is listed once, with the statement that requires it when that is one
 * line (else the call itself); modules already imported at the top level are not repeated.
 */
export function innerRequires(root: SyntaxNode, known: ImportInfo[]): ImportInfo[] {
  const seen = new Set(known.map((i) => i.module));
  const out: ImportInfo[] = [];
  for (const call of root.descendantsOfType('call_expression')) {
    const fn = call.childForFieldName('function');
    if (fn?.type !== 'identifier' || fn.text !== 'require') continue;
    const req = requiredModule(call);
    if (!req || seen.has(req.module)) continue;
    seen.add(req.module);
    let statement: SyntaxNode | null = call;
    while (statement && !statement.type.endsWith('statement') && !statement.type.endsWith('declaration')) statement = statement.parent;
    const oneLine = statement && statement.startPosition.row === statement.endPosition.row;
    out.push({ module: req.module, names: [], line: call.startPosition.row + 1, text: oneLine ? statement!.text.trim() : call.text });
  }
  return out;
}
