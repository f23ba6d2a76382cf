// Code intelligence compute run in the Piscina pool: parse and extract each file of a repository
// ingest (the tree-sitter engine of workers/code), one file's failure never failing the batch.
import { createHash } from 'node:crypto';
import { analyzeInternal } from '../code/analyze.js';
import type { FileAnalysis } from '../code/types.js';
import { SCAN_VERSION, scanFile, type StoredScan } from './scan.js';

/** What module-level code (outside every definition and import) calls and names: refs from top-level code. */
export interface ModuleUses {
  calls: string[];
  identifiers: string[];
}

/** `scan`: gc_scan's findings of the file, computed with the parse (in the pool); absent in analyses stored before gc_scan. */
export type RepoFileAnalysis = FileAnalysis & { module?: ModuleUses; scan?: StoredScan };

const NOT_CALLS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'typeof', 'await', 'super', 'import', 'elif', 'and', 'or', 'not', 'in', 'is', 'sizeof', 'defined', 'match', 'with', 'assert', 'del', 'print', 'lambda', 'yield', 'void', 'delete', 'throw', 'new', 'else', 'do', 'case', 'default', 'func', 'fn', 'def', 'class', 'struct', 'enum', 'impl', 'static', 'const', 'let', 'var', 'export', 'async']);
const CALL_RE = /([A-Za-z_$][\w$]*)\s*(?:<[^<>()\n]*>)?\s*\(/g;
const IDENT_RE = /[A-Za-z_$][\w$]*/g;

/** Offsets [start, end) of module-level text: outside every top-level definition and every import statement. */
export function moduleGaps(a: FileAnalysis): Array<[number, number]> {
  const taken: Array<[number, number]> = a.units.filter((u) => u.parent < 0).map((u) => [u.start, u.end]);
  if (a.imports.length) {
    const starts = [0];
    for (let i = a.content.indexOf('\n'); i >= 0; i = a.content.indexOf('\n', i + 1)) starts.push(i + 1);
    for (const imp of a.imports) {
      const first = starts[imp.line - 1] ?? 0;
      const lastLine = imp.line - 1 + imp.text.split('\n').length;
      taken.push([first, starts[lastLine] ?? a.content.length]);
    }
  }
  taken.sort((x, y) => x[0] - y[0]);
  const gaps: Array<[number, number]> = [];
  let pos = 0;
  for (const [s, e] of taken) {
    if (s > pos) gaps.push([pos, s]);
    pos = Math.max(pos, e);
  }
  if (pos < a.content.length) gaps.push([pos, a.content.length]);
  return gaps;
}

export function moduleUses(a: FileAnalysis): ModuleUses {
  const calls = new Set<string>();
  const identifiers = new Set<string>();
  for (const [s, e] of moduleGaps(a)) {
    const text = a.content.slice(s, e);
    for (const m of text.matchAll(CALL_RE)) if (!NOT_CALLS.has(m[1]!)) calls.add(m[1]!);
    for (const m of text.matchAll(IDENT_RE)) if (m[0].length > 1) identifiers.add(m[0]);
    if (identifiers.size > 2000) break;
  }
  return { calls: [...calls], identifiers: [...identifiers] };
}

export interface RepoFileInput {
  path: string;
  content: string;
  language?: string;
}

export interface RepoFileAnalysed {
  path: string;
  hash: string;
  language: string;
  parser: string;
  units: number;
  bytes: number;
  parse_errors: number;
  /** The FileAnalysis as JSON: stored as is and parsed again only by the index thread. */
  json: string;
}

export interface RepoAnalyseOutput {
  analysed: RepoFileAnalysed[];
  unchanged: string[];
  skipped: { path: string; reason: string; detail: string }[];
}

export function contentHash(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}

export const codeIntelTasks = {
  /** Parses the files whose content hash differs from `known` (path -> sha256 of the stored version). */
  codeIntelAnalyse: (input: { files: RepoFileInput[]; known: Record<string, string> }): RepoAnalyseOutput => {
    const out: RepoAnalyseOutput = { analysed: [], unchanged: [], skipped: [] };
    for (const f of input.files) {
      const hash = contentHash(f.content);
      if (input.known[f.path] === hash) {
        out.unchanged.push(f.path);
        continue;
      }
      try {
        const { analysis } = analyzeInternal({ path: f.path, content: f.content, language: f.language ?? null });
        (analysis as RepoFileAnalysis).module = moduleUses(analysis);
        (analysis as RepoFileAnalysis).scan = { version: SCAN_VERSION, findings: scanFile(analysis.path, analysis.language, analysis.content) };
        out.analysed.push({
          path: f.path,
          hash,
          language: analysis.language,
          parser: analysis.parser,
          units: analysis.units.length,
          bytes: Buffer.byteLength(f.content),
          parse_errors: analysis.parseErrors,
          json: JSON.stringify(analysis),
        });
      } catch (err) {
        const e = err as Error;
        out.skipped.push({ path: f.path, reason: e.name === 'CodeInputError' ? 'not_text' : 'analysis_failed', detail: e.message.slice(0, 300) });
      }
    }
    return out;
  },
};
