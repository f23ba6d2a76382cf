import type { LangSpec } from './languages.js';
import type { SyntaxNode, Tree } from './parse.js';
import { commonJsExport, commonJsExportNames, innerRequires, requireImports } from './commonjs.js';
import { CompactRuns, joinEnumerators } from './cruns.js';
import { docstringSummary, leadingParagraph } from './docs.js';
import { identifiersIn, indentAt, lineSpan, navigable, type Edit } from './text.js';
import type { CodeUnit, ImportInfo, UnitKind } from './types.js';

/** Everything the skeleton renderer needs, gathered in one walk over statement-level nodes. */
export interface Extraction {
  units: CodeUnit[];
  imports: ImportInfo[];
  /** Statements and stray comments removed at balanced and outline. */
  drops: Edit[];
  /** Doc comments and docstrings, each shown whole, cut to its first sentence, or dropped (compress.ts budgets them). */
  docs: DocItem[];
  /** Multi-line initialisers collapsed at balanced and outline. */
  values: Edit[];
  /** API-surface compaction (folded macro runs, joined enumerators): balanced and outline only. */
  compact: Edit[];
  /** C family: strip preprocessor boilerplate from the balanced and outline text (scaffold.ts). */
  scaffolding?: boolean;
  /**
   * Per-unit body elision; keepDoc keeps a Python docstring, noDoc drops it, summaryDoc keeps its first
   * sentence (`doc`: that docstring's index in `docs`). A body holding nested definitions elides its
   * own statements as several runs, around the nested units' signatures.
   */
  bodies: BodyElision[];
}

export interface BodyElision {
  unit: number;
  keepDoc: Edit[];
  noDoc: Edit[];
  summaryDoc?: Edit[];
  doc?: number;
}

/** One doc comment or docstring: what removes it (outline) and what cuts it to its first sentence. */
export interface DocItem {
  /** The unit it documents, or -1 (the module's docstring, a kept statement's comment). */
  unit: number;
  /** Edits removing it; empty when its unit's body elision renders it (a Python function docstring). */
  drop: Edit[];
  /** Edit cutting it to its first sentence, or null when it is that short already. */
  trim: Edit | null;
  /** Its source span. */
  start: number;
  end: number;
  /** A Python function docstring: its body elision's variants show it (BodyElision.doc). */
  inBody?: boolean;
  /** The module's docstring: what the file is, offered before any unit's doc. */
  lead?: boolean;
}

/** An extraction with nothing in it (empty input). */
export function emptyExtraction(): Extraction {
  return { units: [], imports: [], drops: [], docs: [], values: [], compact: [], bodies: [] };
}

interface Ctx {
  container: string | null;
  containerKind: UnitKind | null;
  parent: number;
  exported: boolean;
  /** Statement list of a module or class (Python docstring position matters). */
  inClass: boolean;
  /** Inside a function body: its definitions are local (never exported). */
  local?: boolean;
}

/** Lines of a doc comment's first paragraph balanced keeps at most (C family sets its own). */
const DOC_LINES = 3;

/** Wrappers whose children are a statement list (preprocessor blocks, brace lists, Java enum bodies). */
const BODY_WRAPPERS = new Set(['preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'declaration_list', 'enum_body_declarations']);

const NAME_TYPES = new Set(['identifier', 'field_identifier', 'type_identifier', 'property_identifier', 'destructor_name', 'operator_name', 'qualified_identifier', 'namespace_identifier', 'private_property_identifier', 'constant', 'template_function', 'scoped_identifier', 'primitive_type']);

/** Values an export list's pairs name (`twice: twice`, `parse: qs.parse`). */
const EXPORTED_REFERENCE = new Set(['identifier', 'member_expression']);
/** Objects of functions nested deeper than this are elided as values (the walk of hostile input stays shallow). */
const MAX_OBJECT_DEPTH = 8;
/** Unit kinds whose nested definitions are local (named functions inside a function are not its methods). */
const FUNCTION_SCOPES = new Set<UnitKind>(['function', 'method', 'namespace', 'module']);
/** Function bodies are walked for nested definitions this deep. */
const MAX_NESTING = 12;
/** Kept shapes whose members carry doc comments of their own (TypeScript). */
const INNER_DOC_SHAPES = new Set(['type_alias_declaration', 'enum_declaration']);

export function extract(spec: LangSpec, tree: Tree, source: string, path: string): Extraction {
  const out = emptyExtraction();
  const compact = spec.compact;
  if (compact?.scaffolding) out.scaffolding = true;
  const runs = compact ? new CompactRuns(compact, source, out.compact) : null;
  const enumLists = new Set(compact?.enumLists ?? []);
  const keywords = new Set(spec.keywords);
  const functions = spec.functions;
  const containers = spec.containers;
  const shapes = spec.shapes;
  const wrappers = new Set(spec.wrappers);
  const conditionals = new Set(spec.conditionals);
  const clauses = new Set(spec.clauses);
  const imports = new Set(spec.imports);
  const keep = new Set(spec.keep);
  const comments = new Set(spec.comments);
  const declarators = new Set(spec.declarators);
  const functionValues = new Set(spec.functionValues);
  const py = spec.elision === 'python';
  const ellipsis = py ? '...' : '…';
  // A JS/TS file without ES exports is a script or CommonJS module: its top level is its API.
  const scriptFile = spec.exported === 'export' && !tree.rootNode.namedChildren.some((c) => c.type === 'export_statement');
  const cjs = spec.exported === 'export';

  const drop = (into: Edit[], node: SyntaxNode): void => {
    const [s, e] = lineSpan(source, node.startIndex, node.endIndex);
    into.push({ start: s, end: e, text: '' });
  };

  const isDefinition = (type: string): boolean => type in functions || type in containers || type in shapes;

  const classified = (node: SyntaxNode): boolean => {
    const t = node.type;
    return isDefinition(t) || imports.has(t) || keep.has(t) || wrappers.has(t) || conditionals.has(t) || node.namedChildren.some((c) => isDefinition(c.type));
  };

  const isDocstring = (node: SyntaxNode): boolean =>
    node.type === 'expression_statement' && node.namedChildCount === 1 && node.firstNamedChild!.type === 'string';

  const exportedFor = (name: string, signature: string, ctx: Ctx, node: SyntaxNode): boolean => {
    switch (spec.exported) {
      case 'underscore':
        return !name.startsWith('_') || /^__\w+__$/.test(name);
      case 'export':
        return ctx.container ? (ctx.exported || scriptFile) && !/^\s*(private|#)/.test(signature) && !name.startsWith('#') : ctx.exported || scriptFile;
      case 'modifier':
        return /\b(public|protected)\b/.test(signature) || ctx.containerKind === 'interface';
      case 'capital':
        return /^[A-Z]/.test(name);
      case 'pub':
        return /^\s*(#\[[^\]]*\]\s*)*pub\b/.test(signature) || ctx.containerKind === 'trait' || (ctx.containerKind === 'impl' && ctx.exported);
      case 'header':
        return !/^\s*static\b/.test(signature) && node.type !== 'ERROR';
    }
  };

  const nameOf = (node: SyntaxNode): { name: string; container: string | null } | null => {
    const field = node.childForFieldName('name');
    if (field) return splitQualified(field.text);
    if (node.type === 'impl_item') {
      const type = node.childForFieldName('type');
      return type ? { name: stripGenerics(type.text), container: null } : null;
    }
    // C/C++: the name sits at the bottom of a declarator chain (pointer -> function -> identifier).
    let d = node.childForFieldName('declarator');
    for (let depth = 0; d && depth < 8; depth++) {
      if (NAME_TYPES.has(d.type)) return splitQualified(d.text);
      d = d.childForFieldName('declarator') ?? d.childForFieldName('name');
    }
    return null;
  };

  const preprocessed = spec.id === 'c' || spec.id === 'cpp';
  const signatureOf = (node: SyntaxNode, bodyStart: number | null): string => {
    const end = bodyStart ?? node.endIndex;
    const start = preprocessed ? pastDirectives(source, node.startIndex, end) : node.startIndex;
    return source.slice(start, end).trimEnd();
  };

  const addUnit = (node: SyntaxNode, kind: UnitKind, ctx: Ctx, body: SyntaxNode | null, nameOverride?: { name: string; container: string | null }, span?: SyntaxNode): number => {
    const named = nameOverride ?? nameOf(node);
    if (!named || !named.name) return -1;
    const container = named.container ?? ctx.container;
    const effKind: UnitKind = kind === 'function' && ctx.container && !FUNCTION_SCOPES.has(ctx.containerKind!) ? 'method' : kind;
    const outer = span ?? node;
    const signature = signatureOf(outer, body ? (py ? colonEnd(body) : body.startIndex) : null);
    // Enum shapes (C family): enumerators joined on one line at balanced.
    if (body && enumLists.has(body.type)) joinEnumerators(body, out.compact);
    const qualified = container ? `${container}.${named.name}` : named.name;
    const start = outer.startIndex;
    const unit: CodeUnit = {
      id: `${path}#${qualified}:${outer.startPosition.row + 1}`,
      kind: effKind,
      name: named.name,
      container,
      qualified,
      signature,
      doc: null,
      startLine: outer.startPosition.row + 1,
      endLine: outer.endPosition.row + 1,
      start,
      end: outer.endIndex,
      bodyStart: body ? body.startIndex : null,
      bodyEnd: body ? body.endIndex : null,
      exported: !ctx.local && exportedFor(named.name, signature, ctx, node),
      identifiers: [],
      calls: [],
      parent: ctx.parent,
    };
    out.units.push(unit);
    return out.units.length - 1;
  };

  /** Elide a function body in the language's idiom, keeping a Python docstring at balanced. */
  const elideBody = (unitIndex: number, body: SyntaxNode): void => {
    // Statement lists only (a braced block, a Python block): an arrow's expression body defines nothing.
    if (unitIndex >= 0 && nesting < MAX_NESTING && (py || source[body.startIndex] === '{')) {
      // By offset: the binding may hand out a new object for the same node on each access.
      const nested = new Set(body.namedChildren.filter(definesLocally).map((n) => n.startIndex));
      if (nested.size > 0) return elideAround(unitIndex, body, nested);
    }
    if (!py) {
      const text = source[body.startIndex] === '{' ? '{ … }' : '…';
      const edit = navigable({ start: body.startIndex, end: body.endIndex, text }, body.startIndex, body.endIndex);
      out.bodies.push({ unit: unitIndex, keepDoc: [edit], noDoc: [edit] });
      return;
    }
    const first = body.firstNamedChild;
    // Comments between the colon and the block belong to the body: start the elision at the colon.
    const colon = colonOf(body);
    const from = colon ? colon.endIndex : body.startIndex;
    const sameLine = !colon || colon.endPosition.row === body.startPosition.row;
    const noDoc = navigable({ start: from, end: body.endIndex, text: sameLine ? ' ...' : `\n${indentAt(source, body.startIndex)}...` }, from, body.endIndex);
    if (first && isDocstring(first)) {
      if (unitIndex >= 0) out.units[unitIndex]!.doc = first.text;
      const docIndent = sameLine ? `${indentAt(source, node0(body))}    ` : indentAt(source, first.startIndex);
      const lead = sameLine ? '\n' + docIndent : `\n${indentAt(source, first.startIndex)}`;
      // Ids expand to what follows the docstring, or (docstring cut) to the docstring and the rest.
      const keepDoc = navigable({ start: from, end: body.endIndex, text: `${lead}${first.text}\n${docIndent}...` }, first.endIndex, body.endIndex);
      const summary = docstringSummary(first.text);
      const summaryDoc =
        summary === null ? keepDoc : navigable({ start: from, end: body.endIndex, text: `${lead}${summary}\n${docIndent}...` }, first.startIndex, body.endIndex);
      const trim = summary === null ? null : { start: first.startIndex, end: first.endIndex, text: summary };
      out.docs.push({ unit: unitIndex, drop: [], trim, start: first.startIndex, end: first.endIndex, inBody: true });
      out.bodies.push({ unit: unitIndex, keepDoc: [keepDoc], noDoc: [noDoc], summaryDoc: [summaryDoc], doc: out.docs.length - 1 });
    } else {
      out.bodies.push({ unit: unitIndex, keepDoc: [noDoc], noDoc: [noDoc] });
    }
  };

  /** How deep function bodies are walked for nested definitions (the walk of hostile input stays shallow). */
  let nesting = 0;

  /** A statement of a function body that defines a named function or class (`function f`, `def g`, `const h = () => …`). */
  const definesLocally = (node: SyntaxNode): boolean => {
    const t = node.type;
    if (t in functions || t in containers) return true;
    if (wrappers.has(t)) return node.namedChildren.some(definesLocally);
    if (!spec.valueHolders[t] || !declarators.size) return false;
    return node.namedChildren.some((d) => declarators.has(d.type) && d.childForFieldName('name')?.type === 'identifier' && functionValues.has(d.childForFieldName('value')?.type ?? ''));
  };

  /**
   * A body holding nested definitions: each nested function or class is a unit of its own (its
   * signature shown, its body elided in turn), and the body's own statements between them collapse
   * to one elision per run. Keeping the unit's body shows those runs; nested bodies are their units'
   * to keep. Until 2026-12-03 the whole body was one elision, so debug's `common.js` (one `setup`
   * function around ten others) named 1 of its 11 functions at every level.
   */
  const elideAround = (unitIndex: number, body: SyntaxNode, nested: Set<number>): void => {
    const unit = out.units[unitIndex]!;
    const ctx: Ctx = { container: unit.qualified, containerKind: unit.kind, parent: unitIndex, exported: false, inClass: false, local: true };
    const gaps: Edit[] = [];
    // Python: comments between the colon and the block are the body's own text too.
    if (py) for (let c = body.previousSibling; c && c.type !== ':'; c = c.previousSibling) if (comments.has(c.type)) drop(gaps, c);
    let run: SyntaxNode[] = [];
    const flush = () => {
      const code = run.filter((n) => !comments.has(n.type));
      if (code.length > 0) gaps.push(gapElision(run[0]!, run.at(-1)!));
      else for (const c of run) drop(out.drops, c);
      run = [];
    };
    const children = body.namedChildren;
    const first = children[0];
    let docIndex: number | undefined;
    if (py && first && isDocstring(first)) {
      unit.doc = first.text;
      docIndex = addDoc(unitIndex, [first], docstringSummary(first.text));
    }
    nesting++;
    for (const child of children) {
      if (docIndex !== undefined && child.startIndex === first!.startIndex) continue;
      if (!nested.has(child.startIndex)) {
        run.push(child);
        continue;
      }
      // Comments directly above a nested definition are its doc, as at module level.
      const attached: SyntaxNode[] = [];
      let row = child.startPosition.row;
      while (run.length > 0 && comments.has(run.at(-1)!.type) && run.at(-1)!.endPosition.row >= row - (attached.length === 0 && run.at(-1)!.text.startsWith('/**') ? 2 : 1)) {
        const c = run.pop()!;
        attached.unshift(c);
        row = c.startPosition.row;
      }
      flush();
      const ref = { unit: -1 };
      visitStatement(child, ctx, out.drops, ref);
      if (attached.length > 0) {
        addDoc(ref.unit, attached, null);
        if (ref.unit >= 0) out.units[ref.unit]!.doc ??= attached.map((c) => c.text).join('\n');
      }
    }
    nesting--;
    flush();
    out.bodies.push({ unit: unitIndex, keepDoc: gaps, noDoc: gaps, ...(docIndex !== undefined ? { doc: docIndex } : {}) });
  };

  /** One elision for a run of a body's own statements, on its own line(s) when they start a line. */
  const gapElision = (firstNode: SyntaxNode, lastNode: SyntaxNode): Edit => {
    const lineStart = source.lastIndexOf('\n', firstNode.startIndex - 1) + 1;
    const ownsLine = /^[ \t]*$/.test(source.slice(lineStart, firstNode.startIndex));
    const start = ownsLine ? lineStart : firstNode.startIndex;
    const text = `${ownsLine ? source.slice(lineStart, firstNode.startIndex) : ''}${ellipsis}`;
    return navigable({ start, end: lastNode.endIndex, text }, firstNode.startIndex, lastNode.endIndex);
  };

  /**
   * A doc (comments above a statement, or a docstring statement): dropped at outline, cut to its first
   * sentence (`summary` for a docstring, the leading paragraph of comments) or whole, as the level's
   * budget allows. Returns its index in `docs`.
   */
  const addDoc = (unit: number, nodes: SyntaxNode[], summary: string | null, cut = true): number => {
    const start = nodes[0]!.startIndex;
    const end = nodes.at(-1)!.endIndex;
    const dropEdits: Edit[] = [];
    for (const n of nodes) drop(dropEdits, n);
    let trim: Edit | null = null;
    if (!cut) {
      // no cut form: the doc is shown whole or dropped
    } else if (isDocstring(nodes[0]!)) {
      if (summary !== null) trim = navigable({ start, end, text: summary }, start, end);
    } else {
      const text = leadingParagraph(source.slice(start, end), compact?.docLines ?? DOC_LINES);
      if (text !== null) trim = navigable({ start, end, text }, start, end);
    }
    out.docs.push({ unit, drop: dropEdits, trim, start, end });
    return out.docs.length - 1;
  };

  const visitFunction = (node: SyntaxNode, ctx: Ctx, span?: SyntaxNode): number => {
    if (node.type === 'macro_definition') return visitMacro(node, ctx);
    const body = node.childForFieldName(spec.bodyField);
    const u = addUnit(node, functions[node.type] ?? 'function', ctx, body, undefined, span);
    if (body) elideBody(u, body);
    return u;
  };

  /** `macro_rules! name { ... }`: everything after the name is the body. */
  const visitMacro = (node: SyntaxNode, ctx: Ctx): number => {
    const u = addUnit(node, 'function', ctx, null);
    const name = node.childForFieldName('name');
    if (u >= 0 && name) {
      const unit = out.units[u]!;
      unit.signature = source.slice(node.startIndex, name.endIndex);
      unit.bodyStart = name.endIndex;
      unit.bodyEnd = node.endIndex;
      const edit = navigable({ start: name.endIndex, end: node.endIndex, text: ' { … }' }, name.endIndex, node.endIndex);
      out.bodies.push({ unit: u, keepDoc: [edit], noDoc: [edit] });
    }
    return u;
  };

  const visitContainer = (node: SyntaxNode, ctx: Ctx): number => {
    const kind = containers[node.type]!;
    const body = node.childForFieldName('body');
    const u = addUnit(node, kind, ctx, body);
    if (u >= 0 && node.type === 'impl_item') ctx = { ...ctx, exported: node.childForFieldName('trait') !== null || ctx.exported };
    if (!body) return u;
    const named = u >= 0 ? out.units[u]! : null;
    const inner: Ctx = {
      container: named ? named.qualified : ctx.container,
      containerKind: kind,
      parent: u >= 0 ? u : ctx.parent,
      exported: named ? named.exported || ctx.exported : ctx.exported,
      inClass: true,
    };
    if (py) {
      const first = body.firstNamedChild;
      if (named && first && isDocstring(first)) named.doc = first.text;
      const local: Extraction['drops'] = [];
      const kept = walkBody(body, inner, local);
      if (kept === 0) {
        const text = first && isDocstring(first) ? `${first.text}\n${indentAt(source, first.startIndex)}...` : '...';
        out.drops.push(navigable({ start: body.startIndex, end: body.endIndex, text }, body.startIndex, body.endIndex));
      }
      else out.drops.push(...local);
    } else {
      walkBody(body, inner, out.drops);
    }
    return u;
  };

  /** A kept statement may hide definitions one level down (C `typedef struct {...}`, Go `type X struct`). */
  const visitNestedDefinitions = (node: SyntaxNode, ctx: Ctx): void => {
    for (const child of node.namedChildren) {
      if (child.type in containers) visitContainer(child, ctx);
      else if (child.type in shapes) addUnit(child, shapes[child.type]!, ctx, child.childForFieldName('body'));
      else if (child.type === 'type_spec' || child.type === 'type_alias') addUnit(child, shapeKindOfGoType(child), ctx, null);
    }
    // C/C++ prototypes: `int foo(int);` is the public definition in a header.
    if ((node.type === 'declaration' || node.type === 'field_declaration') && !(spec.id === 'python')) {
      const d = node.childForFieldName('declarator');
      const fn = d ? functionDeclarator(d) : null;
      if (fn) addUnit(node, 'function', ctx, null, nameOf({ childForFieldName: (f: string) => (f === 'declarator' ? fn : null) } as unknown as SyntaxNode) ?? undefined);
    }
  };

  const visitKept = (node: SyntaxNode, ctx: Ctx): number => {
    const holderType = spec.valueHolders[node.type];
    let unit = -1;
    if (holderType) {
      const holders = holderType === node.type ? [node] : node.namedChildren.filter((c) => c.type === holderType);
      for (const holder of holders) {
        const value = holder.childForFieldName('value') ?? holder.childForFieldName('right');
        if (!value) continue;
        const name = holder.childForFieldName('name');
        if (declarators.has(holder.type) && value.type === 'object' && name?.type === 'identifier' && holdsFunctions(value)) {
          visitObjectMembers(value, name.text, ctx);
          continue;
        }
        if (declarators.has(holder.type) && functionValues.has(value.type)) {
          const body = value.childForFieldName('body');
          if (name && name.type === 'identifier') {
            unit = addUnit(value, 'function', ctx, body, { name: name.text, container: null }, node);
            if (body) elideBody(unit, body);
            continue;
          }
        }
        if (holder.type.startsWith('preproc')) {
          // The macro body starts after a `\` continuation, so judge by the whole definition's rows.
          const head = holder.childForFieldName('parameters') ?? holder.childForFieldName('name');
          if (head && holder.startPosition.row !== value.endPosition.row) out.values.push(navigable({ start: head.endIndex, end: value.endIndex, text: ' …' }, head.endIndex, value.endIndex));
        } else if (value.startPosition.row !== value.endPosition.row && !(py && holder.childForFieldName('left')?.text === '__all__')) {
          // Python's `__all__` is the module's export list: kept whole, like `module.exports = { … }`.
          out.values.push(navigable({ start: value.startIndex, end: value.endIndex, text: py ? '...' : '…' }, value.startIndex, value.endIndex));
        }
      }
    }
    visitNestedDefinitions(node, ctx);
    return unit;
  };

  /** An object literal with a function among its members, directly or in a nested object (depth 3). */
  const holdsFunctions = (obj: SyntaxNode, depth = 0): boolean =>
    depth < 3 &&
    obj.namedChildren.some((m) => {
      if (m.type === 'method_definition') return true;
      const value = m.type === 'pair' ? m.childForFieldName('value') : null;
      return !!value && (functionValues.has(value.type) || (value.type === 'object' && holdsFunctions(value, depth + 1)));
    });

  /**
   * An object literal of functions (`export default { data() {…}, methods: { … } }`, a Vue component;
   * `module.exports = { get: (req) => {…} }`; `const api = { … }`) is laid out like a class: each
   * function is a method unit named by its key, its body elided; a nested object of functions is
   * walked the same way; other values spanning lines are elided like a declaration's. Before
   * 2026-11-27 the whole object became `…` at every level.
   */
  const visitObjectMembers = (obj: SyntaxNode, container: string, ctx: Ctx, depth = 0): void => {
    const inner: Ctx = { container, containerKind: 'class', parent: ctx.parent, exported: ctx.exported, inClass: true };
    for (const member of obj.namedChildren) {
      if (member.type === 'method_definition') {
        visitFunction(member, inner);
        continue;
      }
      const key = member.type === 'pair' ? member.childForFieldName('key') : null;
      const value = member.type === 'pair' ? member.childForFieldName('value') : null;
      if (!key || !value) continue; // shorthand names, spreads and comments stay as they are
      const name = key.text.replace(/^(['"`])(.*)\1$/, '$2');
      if (functionValues.has(value.type)) {
        const body = value.childForFieldName('body');
        const u = addUnit(value, 'function', inner, body, { name, container }, member);
        if (u >= 0 && body) elideBody(u, body);
      } else if (value.type === 'object' && depth < MAX_OBJECT_DEPTH && holdsFunctions(value, 1)) {
        visitObjectMembers(value, `${container}.${name}`, ctx, depth + 1);
      } else if (value.startPosition.row !== value.endPosition.row) {
        out.values.push(navigable({ start: value.startIndex, end: value.endIndex, text: '…' }, value.startIndex, value.endIndex));
      }
    }
  };

  /**
   * An exported value: `module.exports = …`, `module.exports.name = …`, `exports.name = …` (a CommonJS
   * module's public surface) or `export default …`, kept like a declaration. A function value is a
   * unit named by what it exports (its body elided); an object of names (`{ add, twice: twice }`) is
   * the export list, kept whole; any other value spanning lines is elided like a declaration's.
   */
  const visitExportedValue = (node: SyntaxNode, value: SyntaxNode | null, exportName: string, ctx: Ctx): number => {
    if (!value) return -1;
    if (functionValues.has(value.type)) {
      const body = value.childForFieldName('body');
      const name = value.childForFieldName('name')?.text ?? exportName;
      const unit = addUnit(value, 'function', ctx, body, { name, container: null }, node);
      if (unit >= 0 && body) elideBody(unit, body);
      return unit;
    }
    if (value.type in containers) return visitContainer(value, ctx);
    if (value.type === 'object' && holdsFunctions(value)) {
      visitObjectMembers(value, exportName, { ...ctx, exported: true });
      return -1;
    }
    const exportList =
      value.type === 'object' &&
      value.namedChildren.every((p) => p.type === 'comment' || p.type === 'shorthand_property_identifier' || (p.type === 'pair' && EXPORTED_REFERENCE.has(p.childForFieldName('value')?.type ?? '')));
    if (!exportList && value.startPosition.row !== value.endPosition.row) {
      out.values.push(navigable({ start: value.startIndex, end: value.endIndex, text: '…' }, value.startIndex, value.endIndex));
    }
    return -1;
  };

  /** Python `if`/`try` at statement level: keep the branches that define things, drop the rest. */
  const visitConditional = (node: SyntaxNode, ctx: Ctx, into: Edit[]): number => {
    let kept = 0;
    const local: Edit[] = [];
    for (const child of node.namedChildren) {
      if (child.type === 'block') {
        const blockEdits: Edit[] = [];
        const k = walkBody(child, ctx, blockEdits);
        if (k === 0) local.push(navigable({ start: child.startIndex, end: child.endIndex, text: ellipsis }, child.startIndex, child.endIndex));
        else local.push(...blockEdits);
        kept += k;
      } else if (clauses.has(child.type)) {
        kept += visitConditional(child, ctx, local);
      }
    }
    if (kept > 0) into.push(...local);
    return kept;
  };

  /** Returns 1 if the statement (or something inside it) was kept, else 0; the unit index via ref. */
  const visitStatement = (node: SyntaxNode, ctx: Ctx, into: Edit[], ref: { unit: number }): number => {
    const type = node.type;
    if (type in functions) {
      ref.unit = visitFunction(node, ctx);
      return 1;
    }
    if (type in containers) {
      ref.unit = visitContainer(node, ctx);
      return 1;
    }
    if (imports.has(type)) {
      out.imports.push(...importInfo(spec.id, node));
      return 1;
    }
    if (type in shapes && !keep.has(type)) {
      ref.unit = addUnit(node, shapes[type]!, ctx, node.childForFieldName('body'));
      return 1;
    }
    // C family: a stretch the parser could not place is still a list of statements (prototypes).
    if (BODY_WRAPPERS.has(type) || (compact && type === 'ERROR')) {
      // `#ifdef X ... #endif`, `{ ... }` lists: their children are statements like any body's.
      const local: Edit[] = [];
      const kept = walkBody(node, ctx, local);
      // `#ifdef __cplusplus` before a `}` that closes `extern "C" {`: the parser ends the block at the
      // brace, without its `#endif`; dropping it would leave the `}` and `#endif` unbalanced.
      const fragment = (type === 'preproc_if' || type === 'preproc_ifdef') && !node.children.some((c) => c.type === '#endif' && !c.isMissing);
      if (kept === 0 && !fragment) {
        drop(into, node);
        return 0;
      }
      into.push(...local);
      return Math.max(kept, 1);
    }
    // ES export lists, re-exports and default values (`export { a, b as c }`, `export * from './y.js'`,
    // `export default add`): the module's surface, kept; a re-export is also a dependency, like an import.
    if (type === 'export_statement' && !node.childForFieldName('declaration')) {
      if (node.childForFieldName('source')) out.imports.push(...importInfo(spec.id, node));
      else ref.unit = visitExportedValue(node, node.childForFieldName('value'), 'default', ctx);
      return 1;
    }
    if (wrappers.has(type)) {
      const inner: Ctx = type === 'export_statement' || type === 'ambient_declaration' ? { ...ctx, exported: true } : ctx;
      let kept = 0;
      const local: Edit[] = [];
      for (const child of node.namedChildren) {
        if (comments.has(child.type) || !classified(child)) continue;
        const sub = { unit: -1 };
        const k = visitStatement(child, inner, local, sub);
        if (k > 0 && sub.unit >= 0) ref.unit = sub.unit;
        // Unclassified children (decorators, #if conditions) stay; visitStatement only drops statements.
        kept += k;
      }
      if (kept === 0 && type !== 'decorated_definition') {
        drop(into, node);
        return 0;
      }
      // A decorated Python definition: widen the unit to cover decorators for line ranges.
      if (type === 'decorated_definition' && ref.unit >= 0) {
        const unit = out.units[ref.unit]!;
        unit.start = node.startIndex;
        unit.startLine = node.startPosition.row + 1;
      }
      into.push(...local);
      return Math.max(1, kept);
    }
    if (conditionals.has(type)) {
      const kept = visitConditional(node, ctx, into);
      if (kept === 0) drop(into, node);
      return kept;
    }
    if (cjs && type === 'expression_statement') {
      const target = commonJsExport(node);
      if (target) {
        ref.unit = visitExportedValue(node, target.assignment.childForFieldName('right'), target.name ?? 'module.exports', ctx);
        return 1;
      }
    }
    // `const x = require('./x')`: an import line (kept verbatim, resolved to a file like an ES import).
    if (cjs && !ctx.local) {
      const required = requireImports(node);
      if (required) {
        out.imports.push(...required.imports);
        if (required.all) return 1;
      }
    }
    if (keep.has(type)) {
      if (py && type === 'expression_statement') {
        const first = node.firstNamedChild;
        if (!first || (first.type !== 'assignment' && first.type !== 'augmented_assignment')) {
          drop(into, node);
          return 0;
        }
      }
      if (type in shapes) ref.unit = addUnit(node, shapes[type]!, ctx, node.childForFieldName('body'));
      if (INNER_DOC_SHAPES.has(type)) memberDocs(node, ref.unit);
      const u = visitKept(node, ctx);
      if (u >= 0) ref.unit = u;
      return 1;
    }
    // Unclassified wrappers such as TS `namespace` inside an expression_statement.
    for (const child of node.namedChildren) {
      if (isDefinition(child.type)) return visitStatement(child, ctx, into, ref);
    }
    drop(into, node);
    return 0;
  };

  /** Walk a statement list (module, class body, namespace, preprocessor block). */
  const walkBody = (body: SyntaxNode, ctx: Ctx, into: Edit[]): number => {
    let kept = 0;
    let pending: SyntaxNode[] = [];
    let first = true;
    let run: SyntaxNode[] = [];
    let runStart = -1;
    const directive = body.type.startsWith('preproc') ? body.startPosition.row : -1;
    for (const child of body.namedChildren) {
      // The directive's own condition (`#ifdef NAME`) is not a statement, nor (C family) its trailing comment.
      if (child.startPosition.row === directive && (compact || !comments.has(child.type))) continue;
      // Same inside a file that failed to parse: `#ifndef NAME`, `extern "C"` are loose tokens there.
      if (compact && body.type === 'ERROR' && (continuesDirective(child) || looseDirective(child))) continue;
      if (comments.has(child.type)) {
        pending.push(child);
        continue;
      }
      if (py && first && isDocstring(child) && (ctx.inClass || ctx.parent === -1)) {
        // Module/class docstring: dropped at outline, cut or whole as the level's budget allows.
        first = false;
        const d = addDoc(ctx.inClass ? ctx.parent : -1, [child], docstringSummary(child.text));
        if (!ctx.inClass) out.docs[d]!.lead = true;
        kept++;
        continue;
      }
      first = false;
      const ref = { unit: -1 };
      const before = out.units.length;
      const k = visitStatement(child, ctx, into, ref);
      // The doc documents the statement's unit, or the first one it defines (a C prototype, a Go type).
      const docUnit = ref.unit >= 0 ? ref.unit : out.units.length > before ? before : -1;
      kept += k;
      // Statements dropped anyway (a `DEFINE_STACK_OF(X)` line) do not break a macro run.
      if (runs?.joins(child, k > 0 && ref.unit < 0)) run.push(child);
      else if (k > 0 && run.length > 0) {
        runs!.fold(run, runStart);
        run = [];
        runStart = -1;
      }
      // Comments directly above (no blank line) a kept statement are its documentation, and so is a
      // `/** … */` block one blank line above it (the style of many npm modules: jshttp, express).
      let row = child.startPosition.row;
      const attached: SyntaxNode[] = [];
      for (let i = pending.length - 1; i >= 0; i--) {
        const c = pending[i]!;
        const gap = i === pending.length - 1 && c.text.startsWith('/**') ? 2 : 1; // the comment nearest the statement
        if (k > 0 && c.endPosition.row >= row - gap) {
          attached.unshift(c);
          row = c.startPosition.row;
        } else drop(into, c);
      }
      // A folded macro run drops its comments at balanced, the one above it included.
      if (run.length === 1 && run[0] === child && runs!.isMacro(child) && attached.length > 0) {
        runStart = ownLineStart(attached[0]!);
        addDoc(docUnit, attached, null, false);
      }
      // Every language cuts a long doc comment to its first sentence where the budget is short (C family: its own line cap).
      else if (attached.length > 0) addDoc(docUnit, attached, null);
      if (docUnit >= 0 && attached.length > 0) {
        const unit = out.units[docUnit]!;
        unit.doc ??= attached.map((c) => c.text).join('\n');
      }
      pending = [];
    }
    for (const c of pending) drop(into, c);
    if (run.length > 0) runs!.fold(run, runStart);
    return kept;
  };

  /** Start of a comment's line when it stands alone there, else the comment's own start. */
  const ownLineStart = (node: SyntaxNode): number => {
    const [s] = lineSpan(source, node.startIndex, node.endIndex);
    return s === 0 || source[s - 1] === '\n' ? s : node.startIndex;
  };

  /**
   * The doc comments of a kept shape's members (`type Options = { /** … *\/ field?: T }`, enum
   * members) are docs like a class member's: dropped at outline, cut to their first sentence at
   * balanced. Kept whole before 2026-11-27, so balanced saved 7% on the MCP SDK's declaration files.
   */
  const memberDocs = (node: SyntaxNode, unit: number): void => {
    for (const c of node.descendantsOfType('comment')) {
      if (c.text.startsWith('/**')) addDoc(unit, [c], null);
    }
  };

  const root = tree.rootNode;
  walkBody(root, { container: null, containerKind: null, parent: -1, exported: false, inClass: false }, out.drops);
  if (scriptFile) markCommonJsExports(root, out.units);
  if (cjs && source.includes('require(')) out.imports.push(...innerRequires(root, out.imports));
  attachCallsAndIdentifiers(spec, root, source, out.units, keywords);
  return out;
}

/**
 * A CommonJS module's public surface is what `module.exports` / `exports.x` name: a top-level unit
 * is exported when it is named there (or its export statement defined it), a member when its
 * container is. A script without such statements keeps its whole top level as its API.
 */
function markCommonJsExports(root: SyntaxNode, units: CodeUnit[]): void {
  const names = commonJsExportNames(root);
  if (!names) return;
  const statements = root.namedChildren.filter((n) => commonJsExport(n) !== null);
  const byExport = (u: CodeUnit) => statements.some((n) => u.start >= n.startIndex && u.end <= n.endIndex);
  units.forEach((u) => {
    if (!u.exported) return;
    if (u.parent >= 0) u.exported = units[u.parent]!.exported;
    else u.exported = byExport(u) || names.has(u.name) || (u.container !== null && names.has(u.container.split('.')[0]!));
  });
}

/** A loose directive operand in an ERROR node: the name after `#ifndef`, the `"C"` after `extern`. */
function continuesDirective(node: SyntaxNode): boolean {
  if (!OPERANDS.has(node.type)) return false;
  const prev = node.previousSibling;
  if (!prev || prev.endPosition.row !== node.startPosition.row) return false;
  return prev.isNamed ? looseDirective(prev) : prev.type.startsWith('#') || prev.type === 'extern';
}

const OPERANDS = new Set(['identifier', 'type_identifier', 'string_literal', 'preproc_defined', 'unary_expression', 'binary_expression', 'parenthesized_expression', 'number_literal']);

/** A conditional directive the parser wrapped in an ERROR of its own (`#ifdef` before a stray `}`). */
function looseDirective(node: SyntaxNode): boolean {
  return node.type === 'ERROR' && node.startPosition.row === node.endPosition.row && /^#\s*(if|ifdef|ifndef|elif|else|endif)\s*$/.test(node.text);
}

/** Start of the statement owning a node's line (for indentation of one-liners). */
function node0(node: SyntaxNode): number {
  return node.parent ? node.parent.startIndex : node.startIndex;
}

/** Python: the header ends at the `:` before the block; comments between belong to the body. */
function colonOf(body: SyntaxNode): SyntaxNode | null {
  let colon = body.previousSibling;
  while (colon && colon.type !== ':') colon = colon.previousSibling;
  return colon;
}

function colonEnd(body: SyntaxNode): number {
  return colonOf(body)?.endIndex ?? body.startIndex;
}

function splitQualified(text: string): { name: string; container: string | null } {
  const clean = stripGenerics(text);
  const idx = clean.lastIndexOf('::');
  if (idx > 0) return { name: clean.slice(idx + 2), container: clean.slice(0, idx) };
  return { name: clean, container: null };
}

function stripGenerics(text: string): string {
  let depth = 0;
  let out = '';
  for (const ch of text) {
    if (ch === '<') depth++;
    else if (ch === '>') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out.replace(/\s+/g, '');
}

function functionDeclarator(node: SyntaxNode): SyntaxNode | null {
  let d: SyntaxNode | null = node;
  for (let depth = 0; d && depth < 6; depth++) {
    if (d.type === 'function_declarator') return d.childForFieldName('declarator');
    if (d.type !== 'pointer_declarator' && d.type !== 'reference_declarator' && d.type !== 'attributed_declarator') return null;
    d = d.childForFieldName('declarator') ?? d.namedChildren.at(-1) ?? null;
  }
  return null;
}

function shapeKindOfGoType(spec: SyntaxNode): UnitKind {
  const t = spec.childForFieldName('type')?.type;
  return t === 'struct_type' ? 'struct' : t === 'interface_type' ? 'interface' : 'type';
}

const CALLEE_TAIL = /([A-Za-z_$][\w$]*)\s*(?:<[^<>()]*>)?\s*!?\s*$/;

/** Calls via tree-sitter (exact callee), identifiers via a scan of the unit text (cheap, good enough for BM25). */
function attachCallsAndIdentifiers(spec: LangSpec, root: SyntaxNode, source: string, units: CodeUnit[], keywords: Set<string>): void {
  if (units.length === 0) return;
  const callTypes = Object.keys(spec.calls);
  const calls = new Map<number, Set<string>>();
  for (const call of root.descendantsOfType(callTypes)) {
    const callee = call.childForFieldName(spec.calls[call.type]!);
    if (!callee) continue;
    const text = callee.endIndex - callee.startIndex > 200 ? '' : callee.text;
    const m = CALLEE_TAIL.exec(text);
    if (!m) continue;
    const owner = innermost(units, call.startIndex);
    if (owner < 0) continue;
    let set = calls.get(owner);
    if (!set) calls.set(owner, (set = new Set()));
    set.add(m[1]!);
  }
  const children = new Map<number, string[]>();
  units.forEach((u, i) => {
    if (u.parent >= 0) {
      let list = children.get(u.parent);
      if (!list) children.set(u.parent, (list = []));
      list.push(u.name);
    }
    u.calls = [...(calls.get(i) ?? [])];
    // Containers: header and member names; functions (nested ones included) and leaves: the whole text.
    const text = children.has(i) && u.kind !== 'function' && u.kind !== 'method' ? `${u.signature}\n${u.doc ?? ''}` : source.slice(u.start, u.end);
    u.identifiers = identifiersIn(text, keywords);
  });
  for (const [i, names] of children) units[i]!.identifiers.push(...names.filter((n) => !units[i]!.identifiers.includes(n)));
}

/** Innermost unit containing index (units are in document pre-order). */
export function innermost(units: CodeUnit[], index: number): number {
  let lo = 0;
  let hi = units.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (units[mid]!.start <= index) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  for (let i = found; i >= 0; i = units[i]!.parent) {
    if (units[i]!.end > index) return i;
    if (units[i]!.parent < 0) {
      // Not inside this top-level unit; an earlier sibling cannot contain it either.
      return -1;
    }
  }
  return -1;
}

const QUOTED = /["'<`]([^"'<>`]+)["'>`]/g;

function importInfo(language: string, node: SyntaxNode): ImportInfo[] {
  const text = node.text;
  const line = node.startPosition.row + 1;
  if (language === 'python') {
    const from = /^\s*from\s+([.\w]+)\s+import\s+([\s\S]*)$/.exec(text);
    if (from) {
      const names = from[2]!.replace(/[()\\]/g, ' ').split(',').map((n) => n.trim().split(/\s+as\s+/)[0]!.trim()).filter(Boolean);
      return [{ module: from[1]!, names, line, text }];
    }
    const mods = text.replace(/^\s*import\s+/, '').split(',').map((n) => n.trim().split(/\s+as\s+/)[0]!.trim());
    return mods.map((module) => ({ module, names: [], line, text }));
  }
  if (language === 'java') {
    const module = text.replace(/^\s*import\s+(static\s+)?/, '').replace(/;\s*$/, '').trim();
    return [{ module, names: [module.split('.').pop() ?? module], line, text }];
  }
  if (language === 'rust') {
    const module = text.replace(/^\s*(pub(\([^)]*\))?\s+)?(use|extern\s+crate)\s+/, '').replace(/;\s*$/, '').trim();
    const names = (/\{([^}]*)\}\s*$/.exec(module)?.[1] ?? module.split('::').pop() ?? '').split(',').map((s) => s.trim().split(/\s+as\s+/)[0]!).filter(Boolean);
    return [{ module, names, line, text }];
  }
  // JS/TS, Go, C/C++: module paths are the quoted strings.
  const modules: string[] = [];
  QUOTED.lastIndex = 0;
  for (let m = QUOTED.exec(text); m; m = QUOTED.exec(text)) modules.push(m[1]!);
  const names: string[] = [];
  const clause = /(?:import|export)\s+([\s\S]*?)\s+from\s/.exec(text);
  if (clause) for (const m of clause[1]!.matchAll(/[A-Za-z_$][\w$]*/g)) if (m[0] !== 'as' && m[0] !== 'type') names.push(m[0]);
  if (modules.length === 0) return [{ module: text.trim(), names, line, text }];
  // Go import blocks list several paths; JS has one source with named bindings.
  return modules.map((module) => ({ module, names, line, text }));
}

/**
 * Parse damage around conditional compilation can start a C declaration inside a directive
 * (`# ifndef OPENSSL_NO_STDIO` / `int f(FILE *fp);` parsed from `OPENSSL_NO_STDIO`): the signature
 * starts after the directive lines (and their backslash continuations), if anything follows them.
 */
function pastDirectives(source: string, start: number, end: number): number {
  let s = start;
  for (;;) {
    const lineStart = source.lastIndexOf('\n', s - 1) + 1;
    if (!/^[ \t]*#/.test(source.slice(lineStart, s + 1))) return s;
    let e = source.indexOf('\n', s);
    while (e > 0 && source[e - 1] === '\\') e = source.indexOf('\n', e + 1);
    if (e < 0 || e + 1 >= end) return start;
    s = e + 1;
    while (s < end && /\s/.test(source[s]!)) s++;
    if (s >= end) return start;
  }
}
