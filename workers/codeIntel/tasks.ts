// Code intelligence compute run in the Piscina pool: parse and extract each file of a repository
// ingest (the tree-sitter engine of workers/code), one file's failure never failing the batch.
import { createHash } from 'node:crypto';
import { analyzeInternal } from '../code/analyze.js';

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
