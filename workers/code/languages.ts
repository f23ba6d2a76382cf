import { createRequire } from 'node:module';
import type { LanguageId } from '../shared/languageNames.js';
import type { UnitKind } from './types.js';

const require = createRequire(import.meta.url);

/**
 * Per-language node-type tables. The walker in units.ts is language-agnostic; everything
 * language-specific lives here as data so adding a grammar is adding a row.
 */
export interface LangSpec {
  id: string;
  /** Lazy grammar loader (native module, loaded on first use in each thread). */
  grammar: () => unknown;
  extensions: string[];
  /** Definitions whose body is elided; kind becomes 'method' inside a class-like container. */
  functions: Record<string, UnitKind>;
  /** Class-like definitions whose body is walked (fields kept, method bodies elided). */
  containers: Record<string, UnitKind>;
  /** Definitions kept whole as shapes (enums, interfaces, type aliases, Go type specs...). */
  shapes: Record<string, UnitKind>;
  /** Transparent wrappers: walk their children as if they were at the wrapper's level. */
  wrappers: string[];
  /** Control flow at statement level that may hold definitions (Python `if`/`try`): walked, dropped when empty. */
  conditionals: string[];
  /** Clause children of conditionals (elif/else/except...). */
  clauses: string[];
  imports: string[];
  /** Statements kept verbatim at module/class level (fields, declarations, constants). */
  keep: string[];
  /** Kept statement types whose value is elided when it spans several lines: type -> descendant holding the value. */
  valueHolders: Record<string, string>;
  /** Variable declarators whose function-valued initialiser is a unit (`const f = () => {}`). */
  declarators: string[];
  functionValues: string[];
  comments: string[];
  /** Node types of a call and the field naming the callee. */
  calls: Record<string, string>;
  /** Body field name on function nodes. */
  bodyField: string;
  /** `...` (Python) or `{ … }` (brace languages). */
  elision: 'python' | 'braces';
  /** Public-definition convention. */
  exported: 'underscore' | 'export' | 'modifier' | 'capital' | 'pub' | 'header';
  keywords: string[];
  /** API-surface compaction at balanced and outline (C family); detailed keeps the source form. */
  compact?: CompactSpec;
}

export interface CompactSpec {
  /** Macro definition node types: each run of consecutive ones folds into prefix groups (macros.ts). */
  macros: string[];
  /** Node types holding a list of enumerators, joined onto one line. */
  enumLists: string[];
  /** Doc comments keep the first sentence of their leading paragraph, at most this many lines, at balanced (docs.ts). */
  docLines: number;
  /** Strip include guards, `#pragma once` and `extern "C"` wrappers (scaffold.ts). */
  scaffolding: boolean;
  /** Hide bare `MACRO(args)` lines from the parser and fold runs of them (cmask.ts). */
  bareCalls: boolean;
}

const C_FAMILY_KEEP = ['declaration', 'type_definition', 'struct_specifier', 'union_specifier', 'enum_specifier', 'preproc_def', 'preproc_function_def', 'preproc_call', 'field_declaration'];
const C_KEYWORDS = ['if', 'else', 'for', 'while', 'do', 'switch', 'case', 'return', 'sizeof', 'struct', 'union', 'enum', 'typedef', 'static', 'const', 'void', 'int', 'char', 'long', 'unsigned', 'signed', 'short', 'float', 'double', 'break', 'continue', 'goto', 'default', 'extern', 'inline'];
const JS_KEYWORDS = ['if', 'else', 'for', 'while', 'do', 'switch', 'case', 'return', 'typeof', 'instanceof', 'new', 'this', 'const', 'let', 'var', 'function', 'class', 'extends', 'import', 'export', 'from', 'default', 'await', 'async', 'yield', 'throw', 'try', 'catch', 'finally', 'break', 'continue', 'true', 'false', 'null', 'undefined', 'void', 'in', 'of'];

const JS_BASE = {
  functions: { function_declaration: 'function', generator_function_declaration: 'function', method_definition: 'method' } as Record<string, UnitKind>,
  containers: { class_declaration: 'class', abstract_class_declaration: 'class', class: 'class', internal_module: 'namespace', module: 'namespace', interface_declaration: 'interface' } as Record<string, UnitKind>,
  shapes: { enum_declaration: 'enum', type_alias_declaration: 'type', function_signature: 'function', abstract_method_signature: 'method', method_signature: 'method', construct_signature: 'method', call_signature: 'method' } as Record<string, UnitKind>,
  wrappers: ['export_statement', 'ambient_declaration'],
  conditionals: [],
  clauses: [],
  imports: ['import_statement'],
  keep: ['lexical_declaration', 'variable_declaration', 'public_field_definition', 'field_definition', 'method_signature', 'property_signature', 'index_signature', 'abstract_method_signature', 'function_signature', 'enum_declaration', 'type_alias_declaration', 'construct_signature', 'call_signature'],
  valueHolders: { lexical_declaration: 'variable_declarator', variable_declaration: 'variable_declarator', public_field_definition: 'public_field_definition', field_definition: 'field_definition' },
  declarators: ['variable_declarator'],
  functionValues: ['arrow_function', 'function_expression', 'function', 'generator_function'],
  comments: ['comment'],
  calls: { call_expression: 'function', new_expression: 'constructor' },
  bodyField: 'body',
  elision: 'braces' as const,
  exported: 'export' as const,
  keywords: JS_KEYWORDS,
};

// Headers are mostly macros and prototypes: fold the macros, keep every prototype verbatim.
const C_COMPACT: CompactSpec = { macros: ['preproc_def', 'preproc_function_def'], enumLists: ['enumerator_list'], docLines: 2, scaffolding: true, bareCalls: true };

const CPP_LIKE = {
  functions: { function_definition: 'function' } as Record<string, UnitKind>,
  conditionals: [],
  clauses: [],
  imports: ['preproc_include'],
  // Multi-line macro bodies collapse like multi-line initialisers.
  valueHolders: { declaration: 'init_declarator', preproc_def: 'preproc_def', preproc_function_def: 'preproc_function_def' },
  declarators: [],
  functionValues: [],
  comments: ['comment'],
  calls: { call_expression: 'function' },
  bodyField: 'body',
  elision: 'braces' as const,
  exported: 'header' as const,
  compact: C_COMPACT,
};

export const LANGUAGES: Record<string, LangSpec> = {
  python: {
    id: 'python',
    grammar: () => require('tree-sitter-python'),
    extensions: ['py', 'pyi', 'pyw'],
    functions: { function_definition: 'function' },
    containers: { class_definition: 'class' },
    shapes: {},
    wrappers: ['decorated_definition'],
    conditionals: ['if_statement', 'try_statement', 'with_statement'],
    clauses: ['elif_clause', 'else_clause', 'except_clause', 'except_group_clause', 'finally_clause'],
    imports: ['import_statement', 'import_from_statement', 'future_import_statement'],
    keep: ['expression_statement', 'type_alias_statement'],
    valueHolders: { expression_statement: 'assignment' },
    declarators: [],
    functionValues: [],
    comments: ['comment'],
    calls: { call: 'function' },
    bodyField: 'body',
    elision: 'python',
    exported: 'underscore',
    keywords: ['self', 'cls', 'def', 'class', 'return', 'if', 'elif', 'else', 'for', 'while', 'in', 'not', 'and', 'or', 'is', 'None', 'True', 'False', 'import', 'from', 'as', 'try', 'except', 'finally', 'raise', 'with', 'yield', 'lambda', 'pass', 'break', 'continue', 'global', 'nonlocal', 'assert', 'del', 'async', 'await'],
  },
  javascript: { id: 'javascript', grammar: () => require('tree-sitter-javascript'), extensions: ['js', 'mjs', 'cjs', 'jsx'], ...JS_BASE },
  typescript: { id: 'typescript', grammar: () => require('tree-sitter-typescript').typescript, extensions: ['ts', 'mts', 'cts'], ...JS_BASE },
  tsx: { id: 'tsx', grammar: () => require('tree-sitter-typescript').tsx, extensions: ['tsx'], ...JS_BASE },
  java: {
    id: 'java',
    grammar: () => require('tree-sitter-java'),
    extensions: ['java'],
    functions: { method_declaration: 'method', constructor_declaration: 'method', compact_constructor_declaration: 'method' },
    containers: { class_declaration: 'class', interface_declaration: 'interface', enum_declaration: 'enum', record_declaration: 'class', annotation_type_declaration: 'interface' },
    shapes: {},
    wrappers: ['enum_body_declarations'],
    conditionals: [],
    clauses: [],
    imports: ['import_declaration'],
    keep: ['package_declaration', 'field_declaration', 'constant_declaration', 'enum_constant', 'annotation_type_element_declaration'],
    valueHolders: { field_declaration: 'variable_declarator', constant_declaration: 'variable_declarator' },
    declarators: [],
    functionValues: [],
    comments: ['line_comment', 'block_comment'],
    calls: { method_invocation: 'name', object_creation_expression: 'type' },
    bodyField: 'body',
    elision: 'braces',
    exported: 'modifier',
    keywords: ['public', 'private', 'protected', 'static', 'final', 'void', 'int', 'long', 'boolean', 'return', 'if', 'else', 'for', 'while', 'new', 'this', 'super', 'null', 'true', 'false', 'class', 'interface', 'extends', 'implements', 'throws', 'throw', 'try', 'catch', 'finally', 'import', 'package'],
  },
  go: {
    id: 'go',
    grammar: () => require('tree-sitter-go'),
    extensions: ['go'],
    functions: { function_declaration: 'function', method_declaration: 'method' },
    containers: {},
    shapes: { type_spec: 'type', type_alias: 'type' },
    wrappers: [],
    conditionals: [],
    clauses: [],
    imports: ['import_declaration'],
    keep: ['package_clause', 'type_declaration', 'const_declaration', 'var_declaration'],
    valueHolders: { const_declaration: 'const_spec', var_declaration: 'var_spec' },
    declarators: [],
    functionValues: [],
    comments: ['comment'],
    calls: { call_expression: 'function' },
    bodyField: 'body',
    elision: 'braces',
    exported: 'capital',
    keywords: ['func', 'return', 'if', 'else', 'for', 'range', 'var', 'const', 'type', 'struct', 'interface', 'nil', 'true', 'false', 'package', 'import', 'go', 'defer', 'select', 'case', 'switch', 'default', 'map', 'chan', 'err', 'string', 'int', 'bool', 'byte', 'error'],
  },
  rust: {
    id: 'rust',
    grammar: () => require('tree-sitter-rust'),
    extensions: ['rs'],
    functions: { function_item: 'function', macro_definition: 'function' },
    containers: { impl_item: 'impl', trait_item: 'trait', mod_item: 'module', foreign_mod_item: 'module' },
    shapes: { struct_item: 'struct', enum_item: 'enum', union_item: 'struct', type_item: 'type', function_signature_item: 'function' },
    wrappers: [],
    conditionals: [],
    clauses: [],
    imports: ['use_declaration', 'extern_crate_declaration'],
    keep: ['struct_item', 'enum_item', 'union_item', 'type_item', 'const_item', 'static_item', 'function_signature_item', 'associated_type', 'attribute_item', 'inner_attribute_item'],
    valueHolders: { const_item: 'const_item', static_item: 'static_item' },
    declarators: [],
    functionValues: [],
    comments: ['line_comment', 'block_comment'],
    calls: { call_expression: 'function', macro_invocation: 'macro' },
    bodyField: 'body',
    elision: 'braces',
    exported: 'pub',
    keywords: ['fn', 'let', 'mut', 'pub', 'impl', 'trait', 'struct', 'enum', 'match', 'if', 'else', 'for', 'while', 'loop', 'return', 'self', 'Self', 'use', 'mod', 'crate', 'super', 'where', 'as', 'ref', 'true', 'false', 'Some', 'None', 'Ok', 'Err', 'unsafe'],
  },
  c: {
    id: 'c',
    grammar: () => require('tree-sitter-c'),
    extensions: ['c', 'h'],
    ...CPP_LIKE,
    containers: {},
    shapes: { struct_specifier: 'struct', union_specifier: 'struct', enum_specifier: 'enum' },
    wrappers: ['preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'linkage_specification', 'declaration_list'],
    keep: C_FAMILY_KEEP,
    keywords: C_KEYWORDS,
  },
  cpp: {
    id: 'cpp',
    grammar: () => require('tree-sitter-cpp'),
    extensions: ['cpp', 'cc', 'cxx', 'c++', 'hpp', 'hh', 'hxx', 'h++', 'ipp', 'inl'],
    ...CPP_LIKE,
    containers: { class_specifier: 'class', struct_specifier: 'struct', union_specifier: 'struct', namespace_definition: 'namespace' },
    shapes: { enum_specifier: 'enum', alias_declaration: 'type' },
    wrappers: ['preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'linkage_specification', 'declaration_list', 'template_declaration'],
    keep: [...C_FAMILY_KEEP, 'access_specifier', 'using_declaration', 'alias_declaration', 'friend_declaration', 'namespace_alias_definition', 'static_assert_declaration'],
    keywords: [...C_KEYWORDS, 'class', 'namespace', 'template', 'typename', 'public', 'private', 'protected', 'virtual', 'override', 'nullptr', 'this', 'auto', 'constexpr', 'std', 'new', 'delete', 'operator'],
  },
} satisfies Record<LanguageId, LangSpec>;

export { normalizeLanguage, SUPPORTED_LANGUAGES } from '../shared/languageNames.js';

const BY_EXTENSION = new Map<string, string>();
for (const spec of Object.values(LANGUAGES)) for (const ext of spec.extensions) BY_EXTENSION.set(ext, spec.id);

/** Extension-only languages we know by name but have no grammar for (line fallback). */
const FALLBACK_EXTENSIONS: Record<string, string> = {
  rb: 'ruby', php: 'php', kt: 'kotlin', kts: 'kotlin', swift: 'swift', scala: 'scala', cs: 'csharp', lua: 'lua',
  sh: 'shell', bash: 'shell', pl: 'perl', pm: 'perl', r: 'r', dart: 'dart', ex: 'elixir', exs: 'elixir', hs: 'haskell', m: 'objective-c',
};

export function languageFromFilename(filename: string): string | null {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const dot = base.lastIndexOf('.');
  if (dot < 0) return null;
  const ext = base.slice(dot + 1).toLowerCase();
  return BY_EXTENSION.get(ext) ?? FALLBACK_EXTENSIONS[ext] ?? null;
}
