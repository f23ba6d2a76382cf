import { analyzeFiles, compressCode, structuralFromAnalyses } from './index.js';
import type { CompressCodeInput, FileAnalysis, StructuralInput } from './index.js';

/** Piscina task registry for the code engine; inputs and outputs are structured-cloneable. */
export const codeTasks = {
  compressCode: (i: CompressCodeInput) => compressCode(i),
  analyzeFiles: (i: { files: { path: string; content: string; language?: string }[] }) => analyzeFiles(i.files),
  structural: (i: { analyses: FileAnalysis[] } & Omit<StructuralInput, 'files'>) => structuralFromAnalyses(i.analyses, i),
};
