// gc_refs / gc_callers: the uses of a symbol from the graph's incoming edges, the lines that show
// them, module-level uses per file, object literals implementing an interface member, and the uses
// that did not resolve to it (said, not guessed).
import type { DefInfo } from '../code/codeindex.js';
import type { RepoFileAnalysis } from './tasks.js';
import type { IndexStore } from './store.js';
import { resolve, resolveFrom } from './resolve.js';
import { inComment, mentionLines, moduleLines, viaReceiver } from './mentions.js';

/** Names with more definitions than this in a scope are not resolved by the graph (workers/code/graph.ts). */
const MAX_CANDIDATES = 4;

/** gc_refs counts unresolved uses of a name up to this many. */
const UNRESOLVED_SCAN_MAX = 500;

export interface RefEntry extends DefInfo {
  via: 'call' | 'reference';
  /** Id of the definition referenced. */
  target: string;
  /** Lines of the referencing unit that mention the name (its nested definitions excluded). */
  lines: number[];
  /** The name resolved to more than one definition here; `candidates` is how many (weight split between them). */
  ambiguous: boolean;
  candidates: number;
}

export interface UnresolvedMention {
  id: string;
  path: string;
  name: string;
  start_line: number;
  reason: 'too_many_candidates' | 'not_in_scope';
}

/** Languages where a method is only reached through a receiver (`x.save()`, `self.save()`), never by its bare name. */
const RECEIVER_LANGS = new Set(['python', 'javascript', 'typescript', 'tsx', 'rust', 'go']);

/**
 * A member of a JS/TS interface or type is also named where an object literal implements it
 * (`{ handler: fn }`, `async handler(…) {`, route and tool tables): such property definitions in
 * the declaring file and in files importing it, outside other interface and type declarations.
 */
function literalMembers(ix: IndexStore, t: number, out: RefEntry[]): void {
  const { units, table, imports } = ix.code;
  const u = units[t]!;
  if (u.parent < 0 || (units[u.parent]!.kind !== 'interface' && units[u.parent]!.kind !== 'type')) return;
  const ft = table.fileOf[t]!;
  if (!['javascript', 'typescript', 'tsx'].includes(ix.code.analyses[ft]!.language)) return;
  const name = u.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(?:^[ \\t]*(?:async[ \\t]+)?${name}[ \\t]*\\(.*\\)[ \\t]*(?::[^=\\n]*)?\\{[ \\t]*$|(?:^|[{,])[ \\t]*${name}[ \\t]*:(?!:))`, 'gm');
  for (let f = 0; f < ix.code.analyses.length; f++) {
    if (f !== ft && !imports.imports[f]!.has(ft)) continue;
    const a = ix.code.analyses[f]!;
    if (!a.content.includes(u.name)) continue;
    const base = ix.look.unitIndex(f, 0);
    const byUnit = new Map<number, number[]>();
    for (let m = re.exec(a.content); m; m = re.exec(a.content)) {
      const at = m.index + m[0].indexOf(u.name);
      if (inComment(a.content, at)) continue;
      let owner = -1;
      a.units.forEach((x, j) => {
        if (x.start <= at && at < x.end && (owner < 0 || x.start >= a.units[owner]!.start)) owner = j;
      });
      if (owner >= 0 && (a.units[owner]!.kind === 'interface' || a.units[owner]!.kind === 'type')) continue;
      const line = ix.look.lineAt(f, at);
      let list = byUnit.get(owner);
      if (!list) byUnit.set(owner, (list = []));
      if (list[list.length - 1] !== line) list.push(line);
    }
    for (const [owner, lines] of byUnit) {
      const info: DefInfo = owner >= 0 ? ix.info(base + owner) : { id: `${a.path}#<module>`, path: a.path, kind: 'module' as DefInfo['kind'], name: '<module>', qualified: '<module>', signature: '', doc: null, start_line: 1, end_line: a.lines, exported: false };
      out.push({ ...info, via: 'reference', target: u.id, lines, ambiguous: false, candidates: 1 });
    }
  }
}

export function refs(ix: IndexStore, symbol: string, kinds: Array<'call' | 'reference'>, limit: number) {
  const targets = resolve(ix, symbol);
  const targetSet = new Set(targets);
  const incoming = ix.code.incomingEdges();
  const out: RefEntry[] = [];
  const linked = new Set<number>();
  const { units } = ix.code;
  const langOf = (t: number) => ix.code.analyses[ix.code.table.fileOf[t]!]!.language;
  const receiverOnly = (t: number) => units[t]!.container !== null && units[t]!.kind === 'method' && RECEIVER_LANGS.has(langOf(t));
  const JS = new Set(['javascript', 'typescript', 'tsx']);
  // A JS/TS constructor is used where its class is instantiated: `new C(…)` sites of the class's uses.
  const ctorClass = (t: number) => (units[t]!.name === 'constructor' && units[t]!.parent >= 0 && JS.has(langOf(t)) ? units[t]!.parent : -1);
  const afterNew = (text: string, at: number) => /\bnew\s+$/.test(text.slice(Math.max(0, at - 12), at));
  // A getter is called by reading it (`this.db`): its reference edges are calls.
  const accessor = (t: number) => units[t]!.kind === 'method' && /^\s*(?:(?:public|private|protected|static|override)\s+)*[gs]et\s+[\w$#]/.test(units[t]!.signature);
  // A function named without a call (passed as a value): not a string's word, a property key, or
  // (JS/TS) a property read `x.name`; and not in a unit that declares a local of that name.
  const valueUse = (t: number) => {
    if (units[t]!.kind !== 'function') return undefined;
    const js = JS.has(langOf(t));
    return (text: string, at: number) => {
      const end = at + units[t]!.name.length;
      const q = text[at - 1];
      if ((q === "'" || q === '"' || q === '`') && text[end] === q) return false;
      if (/^\s*:(?!:)/.test(text.slice(end, end + 8)) && !/\?\s*$/.test(text.slice(Math.max(0, at - 20), at))) return false;
      return !(js && viaReceiver(text, at));
    };
  };
  const declaresLocal = (i: number, name: string) => {
    const u = units[i]!;
    const text = ix.code.analyses[ix.code.table.fileOf[i]!]!.content.slice(u.start, u.end);
    const n = name.replace(/[$]/g, '\\$');
    return new RegExp(`\\b(?:const|let|var)\\s+(?:[\\[{][^=;]*?)?\\b${n}\\b`).test(text) || new RegExp(`[(,]\\s*${n}\\s*[?:,)=]`).test(u.signature);
  };
  // A method read as a property of the unit's own class (the graph's same-class reference edges): `this.x` / `self.x`.
  const viaSelf = (text: string, at: number) => /(?:\bthis\??|\bself)\.\s*$/.test(text.slice(Math.max(0, at - 8), at));
  for (const t of targets) {
    const ctor = ctorClass(t);
    const name = ctor >= 0 ? units[ctor]!.name : units[t]!.name;
    const viaDot = ctor < 0 && receiverOnly(t);
    const callsAll = accessor(t);
    const asValue = valueUse(t);
    for (const ei of incoming[ctor >= 0 ? ctor : t]!) {
      const e = ix.code.edges[ei]!;
      const via = callsAll ? 'call' : e.kind;
      if (!kinds.includes(via)) continue;
      linked.add(e.from);
      // A class -> constructor edge is containment, not a use site.
      if (ctor < 0 && units[t]!.parent === e.from && e.kind === 'call') continue;
      if (ctor >= 0 && (e.kind !== 'call' || e.to !== ctor)) continue;
      const full = e.kind === 'call' ? 1 : 0.5;
      const candidates = Math.max(1, Math.round(full / e.weight));
      let accept: ((text: string, at: number) => boolean) | undefined = ctor >= 0 ? afterNew : asValue;
      if (e.kind === 'reference' && asValue && declaresLocal(e.from, name)) continue;
      // Resolved within its own class: reached as `this.x` / `self.x`, not `this.other.x`.
      if (ctor < 0 && units[t]!.kind === 'method' && units[e.from]!.container === units[t]!.container && ix.code.table.fileOf[e.from] === ix.code.table.fileOf[t]) accept = viaSelf;
      const lines = mentionLines(ix, e.from, name, 200, viaDot, accept);
      if (e.kind === 'reference' && lines.length === 0) continue;
      // A method named without a receiver is some other definition's name (a function, a variable): not this one.
      if ((viaDot || ctor >= 0) && lines.length === 0) continue;
      out.push({ ...ix.info(e.from), via, target: units[t]!.id, lines, ambiguous: candidates > 1, candidates });
    }
    // A recursive definition uses itself (the graph keeps no self-edges).
    if (ctor < 0 && kinds.includes('call') && units[t]!.calls.includes(units[t]!.name)) {
      const lines = mentionLines(ix, t, name, 200, viaDot);
      if (lines.length) out.push({ ...ix.info(t), via: 'call', target: units[t]!.id, lines, ambiguous: false, candidates: 1 });
    }
    if (kinds.includes('reference')) literalMembers(ix, t, out);
  }
  // Module-level code (top-level statements, object literals of definitions such as route tables)
  // is no definition of its own: its uses are attributed per file, resolved by the file's scope.
  for (const t0 of targets) {
    const ctor = ctorClass(t0);
    const t = ctor >= 0 ? ctor : t0;
    const name = units[t]!.name;
    for (const path of ix.users.get(name) ?? []) {
      const f = ix.look.pathIndex(path);
      if (f < 0) continue;
      const mod = (ix.code.analyses[f] as RepoFileAnalysis).module;
      if (!mod) continue;
      const called = mod.calls.includes(name);
      if (!(called || (kinds.includes('reference') && mod.identifiers.includes(name)))) continue;
      const via = called ? 'call' : 'reference';
      if (!kinds.includes(via)) continue;
      const hits = resolveFrom(ix, f, name);
      if (!hits.includes(t)) continue;
      const lines = moduleLines(ix, f, name, 200, ctor < 0 && receiverOnly(t), ctor >= 0 ? afterNew : valueUse(t));
      if (lines.length === 0) continue;
      const a = ix.code.analyses[f]!;
      out.push({
        id: `${path}#<module>`, path, kind: 'module', name: '<module>', qualified: '<module>', signature: '', doc: null,
        start_line: 1, end_line: a.lines, exported: false, via: ctor >= 0 ? 'call' : via, target: units[t0]!.id, lines, ambiguous: hits.length > 1, candidates: hits.length,
      });
    }
  }
  out.sort((a, b) => a.path.localeCompare(b.path) || a.start_line - b.start_line);
  // Units that use the name but did not resolve to any of these definitions: said, not guessed.
  const unresolved: UnresolvedMention[] = [];
  const names = new Set(targets.map((t) => ix.code.units[t]!.name));
  const { table } = ix.code;
  let unresolvedTotal = 0;
  for (const name of names) {
    const files = ix.users.get(name);
    if (!files) continue;
    const defs = table.byName.get(name) ?? [];
    for (const path of files) {
      const f = ix.look.pathIndex(path);
      if (f < 0 || unresolvedTotal >= UNRESOLVED_SCAN_MAX) continue;
      ix.code.analyses[f]!.units.forEach((u, j) => {
        const i = ix.look.unitIndex(f, j);
        if (targetSet.has(i) || linked.has(i)) return;
        const uses = kinds.includes('reference') ? u.calls.includes(name) || u.identifiers.includes(name) : u.calls.includes(name);
        if (!uses) return;
        // Edges to another definition of the same name are that definition's references, not unresolved ones.
        if (ix.look.hasEdgeToName(i, name)) return;
        unresolvedTotal++;
        if (unresolved.length < 20) {
          unresolved.push({ id: u.id, path, name: u.qualified, start_line: u.startLine, reason: defs.length > MAX_CANDIDATES ? 'too_many_candidates' : 'not_in_scope' });
        }
      });
    }
  }
  return {
    symbol,
    resolved: targets.map((t) => ix.code.units[t]!.id),
    not_found: targets.length === 0,
    ambiguous_symbol: targets.length > 1,
    references: out.slice(0, limit),
    total: out.length,
    truncated: out.length > limit,
    unresolved_mentions: unresolved,
    unresolved_total: unresolvedTotal,
    /** The scan for unresolved uses stops at this many (a very common name). */
    unresolved_total_capped: unresolvedTotal >= UNRESOLVED_SCAN_MAX,
  };
}
