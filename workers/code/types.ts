import type { Fidelity } from '../shared/fidelity.js';
import type { TokenizerName } from '../shared/tokens.js';
import type { TokenStats } from '../shared/stats.js';
import type { MarkerLayout } from '../text/markers.js';

/** Which path produced the units: a real grammar or the line-based fallback. */
export type ParserPath = 'tree-sitter' | 'line-fallback';

export type UnitKind =
  | 'function'
  | 'method'
  | 'class'
  | 'interface'
  | 'struct'
  | 'enum'
  | 'trait'
  | 'impl'
  | 'type'
  | 'namespace'
  | 'module';

/**
 * One definition in a file. Offsets are JS string indices (UTF-16 code units) into the
 * normalised file text (`FileAnalysis.content`); lines are 1-based and inclusive.
 */
export interface CodeUnit {
  /** Stable id: `${path}#${qualified}:${startLine}`. */
  id: string;
  kind: UnitKind;
  name: string;
  /** Enclosing class/impl/namespace name, null at top level. */
  container: string | null;
  /** container.name, or name. */
  qualified: string;
  /** Header text verbatim from the source (decorators excluded), body not included. */
  signature: string;
  /** Docstring / doc comment text, verbatim, or null. */
  doc: string | null;
  startLine: number;
  endLine: number;
  start: number;
  end: number;
  /** Range of the elidable body, or null for shapes kept whole. */
  bodyStart: number | null;
  bodyEnd: number | null;
  /** Public / exported by the language's convention. */
  exported: boolean;
  /** Distinct identifiers used inside the unit (for BM25 and references). */
  identifiers: string[];
  /** Distinct names this unit calls (last segment of the callee, e.g. `self.save()` -> `save`). */
  calls: string[];
  /** Index of the enclosing unit in `FileAnalysis.units`, or -1. */
  parent: number;
}

export interface ImportInfo {
  /** Module/path text as written (`os.path`, `./util.js`, `java.util.List`, `stdio.h`). */
  module: string;
  /** Imported names when the syntax lists them (`from a import b, c` -> [b, c]). */
  names: string[];
  line: number;
  /** Verbatim statement text. */
  text: string;
}

/** Plain structured-cloneable per-file result; produced in any worker, consumed by the ranker. */
export interface FileAnalysis {
  path: string;
  language: string;
  parser: ParserPath;
  /** Text after line-ending normalisation (CRLF/CR -> LF). */
  content: string;
  units: CodeUnit[];
  imports: ImportInfo[];
  /** Number of ERROR/MISSING nodes tree-sitter reported (0 for fallback). */
  parseErrors: number;
  lines: number;
  /** o200k_base tokens of the original content (-1 when the caller skipped counting). */
  tokens: number;
  /** Balanced skeleton (signatures + docs) for rendering; computed once per file. */
  skeleton: string;
  /** Outline (signatures only). */
  outline: string;
}

export interface CompressCodeInput {
  code: string;
  language?: string | null;
  filename?: string | null;
  fidelity: Fidelity;
  model?: string | null;
  /** Served skeletons: elisions carry navigable marker ids, and the result their layout (docs/markers.md). */
  markerIds?: boolean;
}

export interface GraphNode {
  id: string;
  kind: UnitKind;
  name: string;
  container: string | null;
  start_line: number;
  end_line: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: 'call' | 'reference';
}

export interface DependencyGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface ImportanceEntry {
  id: string;
  kind: UnitKind;
  name: string;
  container: string | null;
  start_line: number;
  end_line: number;
  score: number;
}

export interface CompressCodeResult extends TokenStats {
  skeleton: string;
  language: string;
  parser: ParserPath;
  imports: ImportInfo[];
  dependency_graph: DependencyGraph;
  importance: ImportanceEntry[];
  fidelity: Fidelity;
  tokenizer: TokenizerName;
  parse_errors: number;
  /** The level's budget in tokens: its share of the input (FIDELITY_BUDGET, no floor); raw: the input. */
  token_budget: number;
  /** Why `compressed_tokens` is over `token_budget` (signatures are never cut), or null when within it. */
  budget_note: string | null;
  /** Set with budget_note, as a code: `floor` (signatures and names are never cut) or `not_shorter` (the input as sent). */
  over_budget?: CodeOverBudget;
  /** With markerIds, when the skeleton has markers: what the host stores to expand them. */
  markers?: MarkerLayout;
}

export interface StructuralFile {
  path: string;
  content: string;
  language?: string | null;
}

export interface StructuralOptions {
  query?: string | null;
  focus_symbols?: string[];
  /** Ask for blast radius explicitly; without focus_symbols this throws BlastRadiusInputError. */
  blast_radius?: boolean;
  token_budget?: number;
  fidelity?: Fidelity;
  model?: string | null;
  /** Served outputs: elided signature bodies carry navigable marker ids (docs/markers.md). */
  markerIds?: boolean;
}

/**
 * Where each file's navigable markers are in a structural output (docs/markers.md): the hidden body
 * spans (offsets into the file's analysed content, in output order) and the offset in the output of
 * each marker's REF_PLACEHOLDER, which the host overwrites with the file's ref.
 */
export interface StructuralMarks {
  /** Index of the file in the analyses. */
  file: number;
  spans: number[];
  refAt: number[];
}

export interface StructuralInput extends StructuralOptions {
  files: StructuralFile[];
}

export interface UnitSignals {
  bm25: number | null;
  blast: number | null;
  pagerank: number;
}

export interface RankedUnit {
  id: string;
  path: string;
  kind: UnitKind;
  name: string;
  container: string | null;
  start_line: number;
  end_line: number;
  rank: number;
  score: number;
  /** How the unit was rendered. */
  rendered: 'full' | 'signature' | 'outline' | 'omitted';
  signals: UnitSignals;
  /** Rank of the unit in each signal (1 = best), null when the signal did not fire. */
  signal_ranks: { bm25: number | null; blast: number | null; pagerank: number };
}

export interface BlastEntry {
  id: string;
  path: string;
  name: string;
  distance: number;
  score: number;
}

export interface BlastRadius {
  focus: string[];
  resolved: Record<string, string[]>;
  /** Units that (transitively) depend on the focus: callers, importers. */
  dependents: BlastEntry[];
  /** Units the focus (transitively) depends on. */
  dependencies: BlastEntry[];
  affected_files: string[];
  not_found: string[];
  result_incomplete: boolean;
}

export interface StructuralResult extends TokenStats {
  /** Rendered context within the token budget. */
  output: string;
  files: number;
  units: number;
  edges: number;
  languages: Record<string, number>;
  parsers: Record<string, number>;
  token_budget: number;
  tokenizer: TokenizerName;
  fidelity: Fidelity;
  query: string | null;
  ranking: RankedUnit[];
  blast_radius: BlastRadius | null;
  /** True when a focus symbol did not resolve. */
  result_incomplete: boolean;
  not_found: string[];
  file_imports: { path: string; resolved: string[]; unresolved: string[] }[];
  timings_ms: { graph: number; rank: number; render: number };
  /** With markerIds, when the output has markers: per file, for the host to fill in refs and store. */
  markers?: StructuralMarks[];
}

/** Why a code output passes its budget, in the text engine's vocabulary (its over_budget). */
export type CodeOverBudget = 'floor' | 'not_shorter';
