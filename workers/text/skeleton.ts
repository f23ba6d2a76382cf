// What the renderers share: the analysed document and the stats a render fills (render.ts, treeRender.ts).
import type { Block } from '../shared/markdown.js';
import type { TreeLayout } from './tree.js';
import type { Unit } from './units.js';

/** One analysed document: what renderSkeleton needs besides the kept flags. */
export interface Skeleton {
  text: string;
  blocks: Block[];
  units: Unit[];
  tokens: ArrayLike<number>;
  /** Tokens between unit k-1 and unit k that neither holds (list bullets, rules, blank lines). */
  gaps?: ArrayLike<number>;
  /** Structured text (JSON, YAML): units are values, rendered by treeRender.ts. */
  tree?: TreeLayout | null;
}

/** Filled by renderSkeleton when passed: what was added around the verbatim unit text. */
export interface RenderStats {
  markers: string[];
  pieces: number;
  /** Hidden spans, one [start, end) pair per marker in output order (flat). */
  spans?: number[];
}
