import type { Fidelity } from '../shared/fidelity.js';
import { foldIncludes } from './includes.js';
import { tidyPreprocessor } from './scaffold.js';
import { applyEdits, type Edit, type Labeler } from './text.js';
import type { CodeUnit, ImportInfo } from './types.js';
import type { Extraction } from './units.js';

/** A doc's state in a rendering: dropped (outline), cut to its first sentence, or whole. */
export const DOC_DROPPED = 0;
export const DOC_CUT = 1;
export const DOC_WHOLE = 2;

/** What a rendering shows beyond the signatures (compress.ts fills it to each level's budget). */
export interface LadderChoice {
  /** Per doc of `Extraction.docs`: DOC_DROPPED, DOC_CUT or DOC_WHOLE. */
  docs: Uint8Array;
  /** Units whose bodies (their own statements; nested units' bodies are theirs) are shown. */
  bodies: Set<number>;
  /** Source form: no C-family compaction (detailed when it fits its budget). */
  source: boolean;
}

/**
 * The fixed renderings, without a budget: outline (no docs, no bodies), balanced (every doc cut to its
 * first sentence) and detailed (every doc whole, source form). The structural path renders these.
 */
export function levelChoice(ex: Extraction, level: 'detailed' | 'balanced' | 'outline'): LadderChoice {
  const state = level === 'outline' ? DOC_DROPPED : level === 'balanced' ? DOC_CUT : DOC_WHOLE;
  return { docs: new Uint8Array(ex.docs.length).fill(state), bodies: new Set(), source: level === 'detailed' };
}

/**
 * Signatures, imports and shapes always; each doc as `choice.docs` says; each body elided unless its
 * unit is in `choice.bodies`. With `label`, elisions carry navigable markers and their hidden spans go
 * to `spans` (compress.ts).
 */
export function renderSkeleton(source: string, ex: Extraction, choice: LadderChoice, label?: Labeler, spans?: number[]): string {
  const edits: Edit[] = [...ex.drops, ...ex.values];
  if (!choice.source) edits.push(...ex.compact);
  ex.docs.forEach((doc, i) => {
    if (doc.inBody) return; // its body's elision shows it (below)
    const state = choice.docs[i];
    if (state === DOC_DROPPED) edits.push(...doc.drop);
    else if (state === DOC_CUT && doc.trim) edits.push(doc.trim);
  });
  for (const body of ex.bodies) {
    if (choice.bodies.has(body.unit)) continue;
    const state = body.doc === undefined ? DOC_WHOLE : choice.docs[body.doc];
    edits.push(...(state === DOC_DROPPED ? body.noDoc : state === DOC_CUT ? (body.summaryDoc ?? body.keepDoc) : body.keepDoc));
  }
  const text = applyEdits(source, edits, label, spans);
  return ex.scaffolding && !choice.source ? foldIncludes(tidyPreprocessor(text)) : text;
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
