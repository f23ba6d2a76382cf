// A workflow graph: nodes of known types with checked parameters, edges forming a DAG. Validation
// reports every problem with its location; the canonical form (sorted keys, defaults applied) is what
// is stored and hashed, so saving the same graph again is recognised.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { FIDELITIES } from '../../../workers/shared/fidelity.js';
import type { Principal } from '../../auth/principal.js';
import { invalidInput, type ValidationIssue } from '../errors.js';
import { isMissing, issuePath, REPORT_INPUT } from '../../lib/zodIssues.js';

export const MAX_NODES = 100;
export const MAX_EDGES = 1000;
/** The spec: a single run submits at most 10 provider calls. */
export const MAX_PROVIDER_CALLS = 10;

const nodeId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'node ids are letters, digits, _ and -');

export const graphShape = z
  .object({
    nodes: z
      .array(
        z
          .object({
            id: nodeId,
            type: z.string().min(1).max(32),
            name: z.string().max(200).optional(),
            params: z.record(z.string(), z.unknown()).optional(),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_NODES),
    edges: z.array(z.object({ from: nodeId, to: nodeId }).strict()).max(MAX_EDGES).default([]),
  })
  .strict();

/** Parameters of each node type. Text parameters may use {{input.NAME}} and {{nodes.ID.text}}. */
export const NODE_PARAMS = {
  kb_query: z
    .object({
      query: z.string().min(1).max(2000),
      limit: z.number().int().min(1).max(50).default(5),
    })
    .strict(),
  compress: z
    .object({
      fidelity: z.enum(FIDELITIES).default('balanced'),
      query: z.string().max(2000).optional(),
      /** The text to compress; default: the upstream nodes' text. */
      text: z.string().max(1_000_000).optional(),
    })
    .strict(),
  llm: z
    .object({
      prompt: z.string().min(1).max(50_000),
      system: z.string().max(20_000).optional(),
      provider: z.string().min(1).max(64).default('default'),
      model: z.string().min(1).max(200).optional(),
      max_tokens: z.number().int().min(1).max(8192).default(512),
      temperature: z.number().min(0).max(2).optional(),
      stream: z.boolean().default(true),
      /** Repeat the provider call if the run was interrupted during it (it may then be paid twice). Default false: the run fails instead. */
      retry_on_interrupt: z.boolean().default(false),
    })
    .strict(),
  tool: z
    .object({
      /** An MCP tool of the registry, called through the one tools/call pipeline as the run's key. */
      tool: z.string().min(1).max(100),
      /** Its arguments; string values may use templates (checked against the tool's schema when saved). */
      arguments: z.record(z.string(), z.unknown()).default({}),
    })
    .strict(),
} as const;

/**
 * The MCP tools a `tool` node may call, given to the domain by the app (the domain does not import
 * the MCP layer): checks a node's tool and arguments, and calls it for a run.
 */
export interface NodeTools {
  /** Problems with a tool node's tool name and arguments (locations relative to params); [] when it may run. */
  check(name: string, args: Record<string, unknown>): ValidationIssue[];
  /** Calls the tool as the run's caller; its structured result (with `error` when isError). */
  call(name: string, args: Record<string, unknown>, principal: Principal, signal: AbortSignal): Promise<{ isError: boolean; data: Record<string, unknown> }>;
}

export type NodeType = keyof typeof NODE_PARAMS;
export const NODE_TYPES = Object.keys(NODE_PARAMS) as NodeType[];

export type NodeParams<T extends NodeType> = z.infer<(typeof NODE_PARAMS)[T]>;

export interface GraphNode {
  id: string;
  type: NodeType;
  name?: string;
  params: Record<string, unknown>;
}

export interface Graph {
  nodes: GraphNode[];
  edges: { from: string; to: string }[];
}

const TEMPLATE = /\{\{\s*(input|nodes)\.([A-Za-z0-9_-]+)(?:\.(text))?\s*\}\}/g;

function issueType(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return isMissing(issue) ? 'missing' : `type_error.${issue.expected}`;
  if (issue.code === 'unrecognized_keys') return 'extra_forbidden';
  return `value_error.${issue.code}`;
}

function templateRefs(value: unknown, refs: string[] = []): string[] {
  if (typeof value === 'string') {
    for (const m of value.matchAll(TEMPLATE)) if (m[1] === 'nodes') refs.push(m[2]!);
  } else if (Array.isArray(value)) {
    for (const v of value) templateRefs(v, refs);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) templateRefs(v, refs);
  }
  return refs;
}

/**
 * Validates a graph and returns it with defaults applied, plus its nodes in execution order (a
 * topological order, ties broken by the order given). Throws a validation error listing every issue.
 */
export function validateGraph(raw: unknown, tools?: NodeTools | null): { graph: Graph; order: string[] } {
  const issues: ValidationIssue[] = [];
  const shape = graphShape.safeParse(raw, REPORT_INPUT);
  if (!shape.success) {
    throw invalidInput('Invalid workflow graph', shape.error.issues.map((i) => ({ loc: ['graph', ...issuePath(i)], msg: i.message, type: issueType(i) })));
  }
  const nodes: GraphNode[] = [];
  const index = new Map<string, number>();
  shape.data.nodes.forEach((n, i) => {
    if (index.has(n.id)) issues.push({ loc: ['graph', 'nodes', i, 'id'], msg: `duplicate node id '${n.id}'`, type: 'value_error.duplicate' });
    index.set(n.id, i);
    const schema = (NODE_PARAMS as Record<string, z.ZodTypeAny>)[n.type];
    if (!schema) {
      issues.push({ loc: ['graph', 'nodes', i, 'type'], msg: `unknown node type '${n.type}'; known types: ${NODE_TYPES.join(', ')}`, type: 'value_error.node_type' });
      return;
    }
    const params = schema.safeParse(n.params ?? {}, REPORT_INPUT);
    if (!params.success) {
      for (const p of params.error.issues) issues.push({ loc: ['graph', 'nodes', i, 'params', ...issuePath(p)], msg: p.message, type: issueType(p) });
      return;
    }
    if (n.type === 'tool' && tools !== undefined) {
      const p = params.data as NodeParams<'tool'>;
      const problems = tools ? tools.check(p.tool, p.arguments) : [{ loc: ['tool'], msg: 'tool nodes are not available on this server', type: 'value_error.tool' }];
      for (const q of problems) issues.push({ ...q, loc: ['graph', 'nodes', i, 'params', ...q.loc] });
    }
    nodes.push({ id: n.id, type: n.type as NodeType, ...(n.name !== undefined ? { name: n.name } : {}), params: params.data as Record<string, unknown> });
  });
  const preds = new Map<string, string[]>(shape.data.nodes.map((n) => [n.id, []]));
  const seen = new Set<string>();
  shape.data.edges.forEach((e, i) => {
    if (!index.has(e.from)) issues.push({ loc: ['graph', 'edges', i, 'from'], msg: `unknown node '${e.from}'`, type: 'value_error.unknown_node' });
    if (!index.has(e.to)) issues.push({ loc: ['graph', 'edges', i, 'to'], msg: `unknown node '${e.to}'`, type: 'value_error.unknown_node' });
    if (e.from === e.to) issues.push({ loc: ['graph', 'edges', i], msg: `self-loop on '${e.from}'`, type: 'value_error.cycle' });
    const key = `${e.from}\u0000${e.to}`;
    if (seen.has(key)) issues.push({ loc: ['graph', 'edges', i], msg: `duplicate edge ${e.from} -> ${e.to}`, type: 'value_error.duplicate' });
    seen.add(key);
    preds.get(e.to)?.push(e.from);
  });
  if (issues.length) throw invalidInput('Invalid workflow graph', issues);

  // Kahn's algorithm, stable in the given node order.
  const indegree = new Map<string, number>(shape.data.nodes.map((n) => [n.id, 0]));
  const succ = new Map<string, string[]>(shape.data.nodes.map((n) => [n.id, []]));
  for (const e of shape.data.edges) {
    indegree.set(e.to, indegree.get(e.to)! + 1);
    succ.get(e.from)!.push(e.to);
  }
  const order: string[] = [];
  const ready = shape.data.nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
  while (ready.length) {
    ready.sort((a, b) => index.get(a)! - index.get(b)!);
    const id = ready.shift()!;
    order.push(id);
    for (const s of succ.get(id)!) {
      indegree.set(s, indegree.get(s)! - 1);
      if (indegree.get(s) === 0) ready.push(s);
    }
  }
  if (order.length !== nodes.length) {
    const cyclic = shape.data.nodes.filter((n) => !order.includes(n.id)).map((n) => n.id);
    throw invalidInput('Invalid workflow graph', [{ loc: ['graph', 'edges'], msg: `the graph has a cycle through ${cyclic.join(', ')}`, type: 'value_error.cycle' }]);
  }

  // {{nodes.X.text}} must name an upstream node (one whose output exists when this node runs).
  const ancestors = new Map<string, Set<string>>();
  for (const id of order) {
    const set = new Set<string>();
    for (const p of preds.get(id)!) {
      set.add(p);
      for (const a of ancestors.get(p)!) set.add(a);
    }
    ancestors.set(id, set);
  }
  nodes.forEach((n) => {
    for (const ref of templateRefs(n.params)) {
      if (!ancestors.get(n.id)!.has(ref)) {
        issues.push({ loc: ['graph', 'nodes', index.get(n.id)!, 'params'], msg: `{{nodes.${ref}.text}} does not name an upstream node of '${n.id}'`, type: 'value_error.template' });
      }
    }
  });
  if (issues.length) throw invalidInput('Invalid workflow graph', issues);
  return { graph: { nodes, edges: shape.data.edges }, order };
}

/** JSON with object keys sorted at every level: one text per graph. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const graphHash = (canonical: string) => createHash('sha256').update(canonical).digest('hex');

/** Predecessors of each node, in edge order. */
export function predecessors(graph: Graph): Map<string, string[]> {
  const preds = new Map<string, string[]>(graph.nodes.map((n) => [n.id, []]));
  for (const e of graph.edges) preds.get(e.to)!.push(e.from);
  return preds;
}

/** Fills {{input.NAME}} from the run's inputs and {{nodes.ID.text}} from upstream outputs. */
export function fillTemplate(text: string, inputs: Record<string, unknown>, outputs: Map<string, { text?: unknown }>): string {
  return text.replace(TEMPLATE, (_m, scope: string, name: string) => {
    if (scope === 'input') {
      const v = inputs[name];
      return v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
    }
    const t = outputs.get(name)?.text;
    return typeof t === 'string' ? t : '';
  });
}

/** fillTemplate over every string of a JSON value (tool arguments). */
export function fillDeep(value: unknown, inputs: Record<string, unknown>, outputs: Map<string, { text?: unknown }>): unknown {
  if (typeof value === 'string') return fillTemplate(value, inputs, outputs);
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, inputs, outputs));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, inputs, outputs)]));
  return value;
}

export function usesNodeTemplates(text: string): boolean {
  return /\{\{\s*nodes\./.test(text);
}

export function countProviderNodes(graph: Graph): number {
  return graph.nodes.filter((n) => n.type === 'llm').length;
}
