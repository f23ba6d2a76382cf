import type { UnitEdge, UnitTable } from './graph.js';

export interface Reach {
  unit: number;
  distance: number;
  score: number;
}

/** Focus symbol forms: unit id, `path:name`, `Container.name` / `Container::name`, or bare name. */
export function resolveFocus(table: UnitTable, paths: string[], symbol: string): number[] {
  const s = symbol.trim();
  if (!s) return [];
  const byId = table.units.findIndex((u) => u.id === s);
  if (byId >= 0) return [byId];
  const colon = /^(.+\.[A-Za-z0-9]+)[:#](.+)$/.exec(s);
  if (colon) {
    const [, path, name] = colon;
    return resolveFocus(table, paths, name!).filter((i) => paths[table.fileOf[i]!] === path || paths[table.fileOf[i]!]!.endsWith(`/${path}`));
  }
  const qualified = s.replace(/::/g, '.');
  const dot = qualified.lastIndexOf('.');
  if (dot > 0) {
    const name = qualified.slice(dot + 1);
    const container = qualified.slice(0, dot);
    const hits = (table.byName.get(name) ?? []).filter((i) => {
      const c = table.units[i]!.container?.replace(/::/g, '.');
      return c === container || (c !== undefined && c !== null && c.endsWith(`.${container}`));
    });
    if (hits.length > 0) return hits;
  }
  return table.byName.get(s) ?? [];
}

/**
 * Breadth-first reach from the focus units. `reverse` walks edges backwards (who depends on the focus);
 * scores decay by `decay` per hop. Members of a focused container count as focus.
 */
export function reach(table: UnitTable, edges: UnitEdge[], focus: number[], reverse: boolean, maxDepth = 8, decay = 0.5): Reach[] {
  const adj: number[][] = Array.from({ length: table.units.length }, () => []);
  for (const e of edges) {
    if (reverse) adj[e.to]!.push(e.from);
    else adj[e.from]!.push(e.to);
  }
  const start = new Set(focus);
  for (let i = 0; i < table.units.length; i++) if (table.units[i]!.parent >= 0 && start.has(table.units[i]!.parent)) start.add(i);
  const dist = new Map<number, number>();
  let frontier = [...start];
  for (const f of frontier) dist.set(f, 0);
  for (let d = 1; d <= maxDepth && frontier.length > 0; d++) {
    const next: number[] = [];
    for (const u of frontier) {
      for (const v of adj[u]!) {
        if (dist.has(v)) continue;
        dist.set(v, d);
        next.push(v);
      }
    }
    frontier = next;
  }
  const out: Reach[] = [];
  for (const [unit, distance] of dist) if (distance > 0) out.push({ unit, distance, score: decay ** distance });
  return out.sort((a, b) => a.distance - b.distance || a.unit - b.unit);
}
