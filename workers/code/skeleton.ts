import type { Fidelity } from '../shared/fidelity.js';
import { foldIncludes } from './includes.js';
import { tidyPreprocessor } from './scaffold.js';
import { applyEdits, type Edit, type Labeler } from './text.js';
import type { CodeUnit, ImportInfo } from './types.js';
import type { Extraction } from './units.js';

/**
 * Outline: imports, signatures and shapes; docs and bodies elided.
 * Balanced: outline plus the first sentence of each doc (long docs cut, Python docstrings included).
 * Detailed: balanced in source form (no compaction), docs whole unless `trimDocs`.
 * Balanced and detailed also keep the bodies in `keepBodies` (chosen by compress.ts to fill the level's budget).
 * With `label`, elisions carry navigable markers and their hidden spans go to `spans` (compress.ts).
 */
export function renderSkeleton(
  source: string,
  ex: Extraction,
  level: 'detailed' | 'balanced' | 'outline',
  keepBodies?: Set<number>,
  trimDocs = level === 'balanced',
  label?: Labeler,
  spans?: number[],
): string {
  const edits: Edit[] = [...ex.drops, ...ex.values];
  if (level !== 'detailed') edits.push(...ex.compact);
  if (level !== 'outline' && trimDocs) edits.push(...ex.docTrims);
  if (level === 'outline') edits.push(...ex.docDrops);
  for (const body of ex.bodies) {
    if (level !== 'outline' && keepBodies?.has(body.unit)) continue;
    edits.push(level === 'outline' ? body.noDoc : trimDocs ? (body.summaryDoc ?? body.keepDoc) : body.keepDoc);
  }
  const text = applyEdits(source, edits, label, spans);
  return ex.scaffolding && level !== 'detailed' ? foldIncludes(tidyPreprocessor(text)) : text;
}

/** Abstract: unit names grouped by container, one line per group. */
export function renderAbstract(units: CodeUnit[], imports: ImportInfo[], language: string): string {
  const lines: string[] = [`language: ${language}`];
  if (imports.length > 0) lines.push(`imports: ${[...new Set(imports.map((i) => i.module))].join(', ')}`);
  const groups = new Map<number, CodeUnit[]>();
  units.forEach((u) => {
    if (u.parent < 0) return;
    let list = groups.get(u.parent);
    if (!list) groups.set(u.parent, (list = []));
    list.push(u);
  });
  const byKind = new Map<string, string[]>();
  units.forEach((u, index) => {
    if (u.parent >= 0) return;
    const members = groups.get(index);
    if (members) lines.push(`${u.kind} ${u.name}: ${members.map((m) => m.name).join(', ')}`);
    else {
      let list = byKind.get(u.kind);
      if (!list) byKind.set(u.kind, (list = []));
      list.push(u.name);
    }
  });
  // Nested containers (inner classes) get their own line too.
  units.forEach((u, i) => {
    if (u.parent >= 0 && groups.has(i)) lines.push(`${u.kind} ${u.qualified}: ${groups.get(i)!.map((m) => m.name).join(', ')}`);
  });
  for (const [kind, names] of byKind) lines.push(`${pluralKind(kind)}: ${names.join(', ')}`);
  return lines.join('\n') + '\n';
}

/** `class` -> `classes`, `property` -> `properties`, `function` -> `functions`. */
export function pluralKind(kind: string): string {
  if (/(s|x|z|ch|sh)$/.test(kind)) return `${kind}es`;
  if (/[^aeiou]y$/.test(kind)) return `${kind.slice(0, -1)}ies`;
  return `${kind}s`;
}

export type SkeletonLevel = Exclude<Fidelity, 'raw'>;
