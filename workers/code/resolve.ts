import type { ResolveScope } from './graph.js';
import type { FileAnalysis } from './types.js';

export interface ImportResolution extends ResolveScope {
  perFile: { path: string; resolved: string[]; unresolved: string[] }[];
}

function norm(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '');
}

function stripExt(path: string): string {
  return path.replace(/\.[A-Za-z0-9+]+$/, '');
}

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

function join(dir: string, rel: string): string {
  const parts = dir ? dir.split('/') : [];
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

function addSuffixes(map: Map<string, number[]>, key: string, file: number): void {
  const segs = key.split('/');
  for (let i = 0; i < segs.length; i++) {
    const suffix = segs.slice(i).join('/');
    let list = map.get(suffix);
    if (!list) map.set(suffix, (list = []));
    list.push(file);
  }
}

/** One file's resolved imports: file indexes, explicitly imported names, paths, unresolved modules. */
export interface FileImports {
  set: Set<number>;
  names: Set<string>;
  resolved: string[];
  unresolved: string[];
}

/** Map each file's imports to files in the set (by path suffix, per-language module syntax). */
export function resolveImports(analyses: FileAnalysis[]): ImportResolution {
  const resolveFile = importResolver(analyses);
  const imports: Set<number>[] = [];
  const importedNames: Set<string>[] = [];
  const perFile: ImportResolution['perFile'] = [];
  analyses.forEach((a, f) => {
    const r = resolveFile(a, f);
    imports.push(r.set);
    importedNames.push(r.names);
    perFile.push({ path: a.path, resolved: r.resolved, unresolved: r.unresolved });
  });
  return { imports, importedNames, perFile, languages: analyses.map((a) => a.language), dirs: analyses.map((a) => dirOf(norm(a.path))) };
}

/**
 * The path indexes of a file set, and a function resolving one file's imports against them (file
 * `f` of the set, possibly with new content): what the incremental index re-runs for a changed file
 * while the set of paths stays the same.
 */
export function importResolver(analyses: FileAnalysis[]): (a: FileAnalysis, f: number) => FileImports {
  const noExt = new Map<string, number[]>();
  const withExt = new Map<string, number[]>();
  const byDir = new Map<string, number[]>();
  const exact = new Map<string, number>();
  analyses.forEach((a, f) => {
    const p = norm(a.path);
    let key = stripExt(p);
    if (key.endsWith('/__init__') || key.endsWith('/mod') || key.endsWith('/index')) key = dirOf(key);
    exact.set(key, f);
    exact.set(stripExt(p), f);
    addSuffixes(noExt, key, f);
    addSuffixes(withExt, p, f);
    addSuffixes(byDir, dirOf(p) || '.', f);
  });
  const unique = (list: number[] | undefined): number[] => (list && list.length <= 3 ? list : []);

  const lookup = (a: FileAnalysis, module: string, names: string[]): number[] => {
    const dir = dirOf(norm(a.path));
    switch (a.language) {
      case 'python': {
        const dots = /^\.*/.exec(module)![0].length;
        const rest = module.slice(dots).replace(/\./g, '/');
        if (dots > 0) {
          let base = dir;
          for (let i = 1; i < dots; i++) base = dirOf(base);
          const key = join(base, rest);
          const hits = [exact.get(key), ...names.map((n) => exact.get(join(key, n)))].filter((x): x is number => x !== undefined);
          return hits;
        }
        const hits = unique(noExt.get(rest));
        const subs = names.flatMap((n) => unique(noExt.get(`${rest}/${n}`)));
        return [...hits, ...subs];
      }
      case 'javascript':
      case 'typescript':
      case 'tsx': {
        if (module.startsWith('.')) {
          const key = stripExt(join(dir, module));
          const hit = exact.get(key);
          return hit !== undefined ? [hit] : [];
        }
        // A bare name (`stream`, `debug`) is a package or a Node built-in, never a file of the set
        // (ws's `require('stream')` is not its lib/stream.js); a path (`src/util`, `@/x`) may be an alias.
        return module.includes('/') ? unique(noExt.get(module)) : [];
      }
      case 'java':
        return unique(noExt.get(module.replace(/\.\*$/, '').replace(/\./g, '/')));
      case 'go': {
        const segs = module.split('/');
        for (let i = Math.max(0, segs.length - 3); i < segs.length; i++) {
          const hit = byDir.get(segs.slice(i).join('/'));
          if (hit) return hit;
        }
        return [];
      }
      case 'rust': {
        const segs = module.replace(/^(crate|self|super)::/, '').replace(/::\{.*$/, '').split('::');
        for (let n = segs.length; n > 0; n--) {
          const hit = unique(noExt.get(segs.slice(0, n).join('/')));
          if (hit.length > 0) return hit;
        }
        return [];
      }
      default: {
        const rel = exact.get(stripExt(join(dir, module)));
        if (rel !== undefined && withExt.has(module.split('/').pop()!)) return [rel];
        return unique(withExt.get(module));
      }
    }
  };

  const paths = analyses.map((a) => a.path);
  return (a, f) => {
    const set = new Set<number>();
    const names = new Set<string>();
    const resolved: string[] = [];
    const unresolved: string[] = [];
    for (const imp of a.imports) {
      for (const n of imp.names) names.add(n);
      const hits = lookup(a, imp.module, imp.names).filter((h) => h !== f);
      if (hits.length === 0) unresolved.push(imp.module);
      for (const h of hits) {
        if (!set.has(h)) resolved.push(paths[h]!);
        set.add(h);
      }
    }
    return { set, names, resolved, unresolved };
  };
}
