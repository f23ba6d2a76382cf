// Prompt templates are Mustache (logic-less: no code runs, values are only looked up and inserted).
// Parsing, variable analysis and rendering run here in the pool. Rendering never HTML-escapes: a
// prompt is plain text, so {{x}} and {{{x}}} insert the same characters.
import Mustache from 'mustache';

// The library caches every parsed template forever; a worker sees many users' templates.
Mustache.templateCache = undefined;

export { VARIABLE_TYPES, type VariableType } from '../shared/promptVariables.js';
import type { VariableType } from '../shared/promptVariables.js';

export interface VariableSpec {
  name: string;
  type: VariableType;
  required: boolean;
  description?: string;
}

/** What the template itself references. */
export interface TemplateAnalysis {
  /** Names looked up in the top-level context (outside `#` sections), and the section names. */
  variables: { name: string; type: VariableType }[];
  /** Names used only inside `#` sections: fields of the section's items (or optional outer values). */
  section_fields: string[];
}

export type AnalyzeOutcome = { ok: true; analysis: TemplateAnalysis } | { ok: false; error: string };

type Token = [string, string, number, number, Token[]?, number?];

const merge = (a: VariableType | undefined, b: VariableType): VariableType => {
  if (!a || a === b) return b;
  if (a === 'any' || b === 'any') return 'any';
  if (a === 'object' || b === 'object') return 'object';
  return 'scalar';
};

export function analyzeTemplate(body: string): AnalyzeOutcome {
  let tokens: Token[];
  try {
    tokens = Mustache.parse(body) as unknown as Token[];
  } catch (err) {
    return { ok: false, error: `invalid template syntax: ${err instanceof Error ? err.message : String(err)}` };
  }
  const top = new Map<string, VariableType>();
  const nested = new Set<string>();
  let partial: string | null = null;
  const walk = (list: Token[], inSection: boolean) => {
    for (const t of list) {
      const [kind, value] = t;
      if (kind === '>') partial ??= value;
      if (kind !== 'name' && kind !== '&' && kind !== '#' && kind !== '^') continue;
      if (value === '.') continue;
      const root = value.split('.')[0]!;
      // a.b needs an object; a section takes a boolean, a list or an object; a plain tag a scalar.
      const type: VariableType = value.includes('.') ? 'object' : kind === '#' || kind === '^' ? 'any' : 'scalar';
      if (inSection) nested.add(root);
      else top.set(root, merge(top.get(root), type));
      if (t[4]) walk(t[4], inSection || kind === '#');
    }
  };
  walk(tokens, false);
  if (partial !== null) return { ok: false, error: `invalid template syntax: partials ({{> ${partial}}}) are not supported` };
  return {
    ok: true,
    analysis: {
      variables: [...top].map(([name, type]) => ({ name, type })).sort((a, b) => a.name.localeCompare(b.name)),
      section_fields: [...nested].filter((n) => !top.has(n)).sort(),
    },
  };
}

/**
 * The version's variable list: the declared one checked against the template (every top-level name
 * declared, every declared name used), or the inferred one (all required).
 */
export function resolveVariables(body: string, declared: VariableSpec[] | null): { ok: true; variables: VariableSpec[]; analysis: TemplateAnalysis } | { ok: false; error: string } {
  const a = analyzeTemplate(body);
  if (!a.ok) return a;
  const { analysis } = a;
  if (!declared) return { ok: true, analysis, variables: analysis.variables.map((v) => ({ name: v.name, type: v.type, required: true })) };
  const names = new Set(declared.map((d) => d.name));
  if (names.size !== declared.length) return { ok: false, error: 'variables: a name is declared twice' };
  const undeclared = analysis.variables.filter((v) => !names.has(v.name)).map((v) => v.name);
  if (undeclared.length) return { ok: false, error: `variables: the template uses undeclared variable(s) ${undeclared.join(', ')}` };
  const used = new Set([...analysis.variables.map((v) => v.name), ...analysis.section_fields]);
  const unused = declared.filter((d) => !used.has(d.name)).map((d) => d.name);
  if (unused.length) return { ok: false, error: `variables: declared but not used in the template: ${unused.join(', ')}` };
  return { ok: true, analysis, variables: declared };
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function fits(type: VariableType, v: unknown): boolean {
  const t = typeOf(v);
  switch (type) {
    case 'any':
      return true;
    case 'scalar':
      return t === 'string' || t === 'number' || t === 'integer' || t === 'boolean';
    case 'number':
      return t === 'number' || t === 'integer';
    default:
      return t === type;
  }
}

export interface VariableProblem {
  name: string;
  problem: 'missing' | 'extra' | 'type';
  expected?: VariableType;
  got?: string;
}

export type RenderOutcome = { ok: true; text: string } | { ok: false; problems: VariableProblem[] };

/** Checks the values against the version's variables, then renders (no escaping, no partials). */
export function renderTemplate(body: string, variables: VariableSpec[], values: Record<string, unknown>, sectionFields: string[] = []): RenderOutcome {
  const problems: VariableProblem[] = [];
  const known = new Set([...variables.map((v) => v.name), ...sectionFields]);
  for (const spec of variables) {
    if (!Object.hasOwn(values, spec.name)) {
      if (spec.required) problems.push({ name: spec.name, problem: 'missing', expected: spec.type });
    } else if (!fits(spec.type, values[spec.name])) {
      problems.push({ name: spec.name, problem: 'type', expected: spec.type, got: typeOf(values[spec.name]) });
    }
  }
  for (const name of Object.keys(values)) if (!known.has(name)) problems.push({ name, problem: 'extra' });
  if (problems.length) return { ok: false, problems };
  return { ok: true, text: Mustache.render(body, values, {}, { escape: (v: unknown) => String(v) }) };
}

/** The problems as one sentence a caller can act on. */
export function describeProblems(problems: VariableProblem[]): string {
  const missing = problems.filter((p) => p.problem === 'missing').map((p) => `${p.name} (${p.expected})`);
  const extra = problems.filter((p) => p.problem === 'extra').map((p) => p.name);
  const wrong = problems.filter((p) => p.problem === 'type').map((p) => `${p.name} must be ${p.expected}, got ${p.got}`);
  return [
    missing.length ? `missing variable(s): ${missing.join(', ')}` : '',
    extra.length ? `unknown variable(s): ${extra.join(', ')}` : '',
    wrong.length ? `type mismatch: ${wrong.join('; ')}` : '',
  ].filter(Boolean).join('; ');
}

/** The template's Mustache tags in order of appearance (the rewrite must keep every one). */
export function templateTags(body: string): string[] {
  const tags: string[] = [];
  const walk = (list: Token[]) => {
    for (const t of list) {
      if (t[0] === 'text') continue;
      tags.push(`${t[0]}:${t[1]}`);
      if (t[4]) walk(t[4]);
    }
  };
  try {
    walk(Mustache.parse(body) as unknown as Token[]);
  } catch {
    return [];
  }
  return tags.sort();
}
