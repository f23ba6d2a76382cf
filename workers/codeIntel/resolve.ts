// Name resolution over the index: a symbol (id, `path:name`, `Container.name`, bare name) to unit
// indexes, a path to its file, and a bare name as one file's scope reaches it (the graph's rules).
import type { IndexStore } from './store.js';

/** Unit indexes a symbol names: an id or `path:name` by map lookups (O(1)), other forms as the code engine resolves them. */
export function resolve(ix: IndexStore, symbol: string): number[] {
  const s = symbol.trim();
  const byId = ix.unitById(s);
  if (byId >= 0) return [byId];
  const colon = /^(.+\.[A-Za-z0-9]+)[:#](.+)$/.exec(s);
  if (colon) {
    const f = ix.look.pathIndex(colon[1]!);
    if (f >= 0) {
      const inner = colon[2]!.replace(/::/g, '.');
      const dot = inner.lastIndexOf('.');
      const name = dot > 0 ? inner.slice(dot + 1) : inner;
      const container = dot > 0 ? inner.slice(0, dot) : null;
      return (ix.code.table.byName.get(name) ?? []).filter((i) => {
        if (ix.code.table.fileOf[i] !== f) return false;
        if (container === null) return true;
        const c = ix.code.units[i]!.container?.replace(/::/g, '.');
        return c === container || (c != null && c.endsWith(`.${container}`));
      });
    }
  }
  return ix.code.resolve(s);
}

/** File index of a path as given: exact, else the one indexed path that ends with it (-1: none or several). */
export function fileIndex(ix: IndexStore, path: string): number {
  const p = path.replace(/\\/g, '/').replace(/^\.\//, '');
  const exact = ix.look.pathIndex(p);
  if (exact >= 0) return exact;
  const hits = ix.code.paths.flatMap((q, f) => (q.endsWith(`/${p}`) ? [f] : []));
  return hits.length === 1 ? hits[0]! : -1;
}

/**
 * Definitions a bare name reaches from one file, by the graph's scope rules: the file itself,
 * the files it imports, names it imports explicitly, then the language's implicit scope.
 */
export function resolveFrom(ix: IndexStore, f: number, name: string): number[] {
  const { table, imports } = ix.code;
  const own = table.byName.get(name) ?? [];
  if (own.length === 0) return [];
  const sameFile = own.filter((c) => table.fileOf[c] === f);
  if (sameFile.length > 0) return sameFile;
  const imported = own.filter((c) => imports.imports[f]!.has(table.fileOf[c]!));
  if (imported.length > 0) return imported;
  if (imports.importedNames[f]!.has(name)) return own.filter((c) => table.units[c]!.exported);
  const lang = imports.languages[f]!;
  if (lang === 'go' || lang === 'java') return own.filter((c) => imports.dirs[table.fileOf[c]!] === imports.dirs[f]);
  if (lang === 'c' || lang === 'cpp' || lang === 'rust') return own;
  return [];
}
