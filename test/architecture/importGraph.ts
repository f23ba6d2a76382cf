// The TypeScript import graph of our own modules, read from the source: `import … from`, `export … from`,
// side-effect and dynamic imports, each edge marked whether it carries a value at run time.
import { dirname, relative, resolve } from 'node:path';

export interface ImportEdge {
  /** Repository-relative path of the imported module (.ts). */
  to: string;
  /** The spec as written ('../../workers/text/markers.js'). */
  spec: string;
  /** False for `import type`, `export type` and imports whose every name is marked `type`. */
  value: boolean;
  dynamic: boolean;
}

// `import|export` clause `from '…'`, across lines; the clause never contains a quote or semicolon.
const FROM = /^(import|export)\s+(type\s+)?([^;'"]*?)\s*from\s+'([^']+)'/gm;
const BARE = /^import\s+'([^']+)'/gm;
const DYNAMIC = /\bimport\(\s*'([^']+)'\s*\)/g;

/** Whether a clause's names are all types: `{ type A, type B }` (a default or namespace import is a value). */
function onlyTypes(clause: string): boolean {
  const braces = /^\{([^}]*)\}$/.exec(clause.trim());
  if (!braces) return false;
  const names = braces[1]!.split(',').map((n) => n.trim()).filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
}

/** Edges from `file` (repository-relative) to the modules in `known`; package imports are left out. */
export function importsOf(file: string, source: string, known: ReadonlySet<string>, root: string): ImportEdge[] {
  const raw: Omit<ImportEdge, 'to'>[] = [];
  for (const m of source.matchAll(FROM)) raw.push({ spec: m[4]!, value: !m[2] && !onlyTypes(m[3]!), dynamic: false });
  for (const m of source.matchAll(BARE)) raw.push({ spec: m[1]!, value: true, dynamic: false });
  for (const m of source.matchAll(DYNAMIC)) raw.push({ spec: m[1]!, value: true, dynamic: true });
  const edges: ImportEdge[] = [];
  for (const e of raw) {
    if (!e.spec.startsWith('.')) continue;
    const to = relative(root, resolve(root, dirname(file), e.spec.replace(/\.js$/, '.ts')));
    if (known.has(to)) edges.push({ ...e, to });
  }
  return edges;
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  const connect = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
