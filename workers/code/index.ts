export { compressCode } from './compress.js';
export { analyzeFile, analyzeFiles, assertText } from './analyze.js';
export { structuralFromAnalyses, compressStructural } from './structural.js';
export { CodeIndex } from './codeindex.js';
export { CodeInputError, BlastRadiusInputError } from './errors.js';
export { SUPPORTED_LANGUAGES } from './languages.js';
export { detectLanguage } from './detect.js';
export type * from './types.js';
