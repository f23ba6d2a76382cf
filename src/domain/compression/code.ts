import type { CompressCodeInput, CompressCodeResult, FileAnalysis, StructuralFile, StructuralOptions } from '../../../workers/code/index.js';
import { normalizeLanguage, SUPPORTED_LANGUAGES } from '../../../workers/shared/languageNames.js';
import { tokenStats } from '../../../workers/shared/stats.js';
import { rememberMarkers } from './markerStore.js';
import { markerRef, textHashOf } from '../../../workers/shared/markers.js';
import { originalSpans } from '../../../workers/shared/spans.js';
import type { StructuralMarks } from '../../../workers/code/types.js';
import type { Call } from '../call.js';
import { invalid } from '../errors.js';
import { batchesBySize } from '../../lib/batches.js';

/** A code result; `parser: 'text'` when the content was no code we could detect and went through the text compressor. */
export type CompressCodeResponse = Omit<CompressCodeResult, 'parser'> & { parser: CompressCodeResult['parser'] | 'text' };

/**
 * AST-aware compression of one source file (REST /v1/compress-code). A named language we cannot parse
 * is refused (400, naming the supported ones); content whose language cannot be detected, or that the
 * line fallback would reduce to nothing, is compressed as text and says so, so no result ever claims
 * savings for code it silently dropped.
 */
export async function compressCode(call: Call, input: CompressCodeInput): Promise<CompressCodeResponse> {
  if (input.language && !SUPPORTED_LANGUAGES.includes(normalizeLanguage(input.language))) {
    throw invalid(
      `Unsupported language '${input.language}'. Supported: ${SUPPORTED_LANGUAGES.join(', ')}. ` +
        'Omit language to detect it from the content (content that is no detectable code is compressed as text).',
    );
  }
  await call.requireQuota();
  const started = performance.now();
  // Served skeletons carry navigable markers (docs/markers.md); the layout is stored, never sent.
  const { markers, ...computed } = await call.compute('compressCode', { ...input, markerIds: true }, { field: 'code' });
  let result: CompressCodeResponse = computed;
  if (result.language === 'unknown' || (result.skeleton.trim() === '' && input.code.trim() !== '')) {
    const text = await call.compute('compress', { text: input.code, fidelity: input.fidelity, query: null, model: input.model ?? null, markerIds: true }, { field: 'code' });
    rememberMarkers(call.services, call.principal.userId, input.code, text.markers);
    result = { ...result, skeleton: text.compressed_text, parser: 'text', ...tokenStats(text.original_tokens, text.compressed_tokens) };
  } else rememberMarkers(call.services, call.principal.userId, input.code, markers);
  call.services.metrics.observeCompress('compress-code', (performance.now() - started) / 1000);
  call.report({ inputTokens: result.original_tokens, outputTokens: result.compressed_tokens, fidelity: input.fidelity, model: input.model ?? null, inputText: input.code });
  return result;
}


/**
 * Structural compression of many files (REST /v1/compress-code/structural, MCP compress_codebase):
 * parsing spreads across the pool, then one task builds the cross-file graph, ranks and renders.
 */
export async function compressRepository(call: Call, input: { files: StructuralFile[] } & StructuralOptions) {
  await call.requireQuota();
  const started = performance.now();
  const { files, ...options } = input;
  const parts = Math.max(1, call.services.pool.stats().threads * 4);
  const work = batchesBySize(files, parts);
  call.expectSteps(work.length + 1); // the parse batches, then the graph
  const analysed = await Promise.all(
    work.map((batch) =>
      call.compute('analyzeFiles', { files: batch.map((f) => ({ path: f.path, content: f.content, language: f.language ?? undefined })) }, { field: 'files' }),
    ),
  );
  const analyses: FileAnalysis[] = analysed.flat();
  const { markers, ...result } = await call.compute('structural', { analyses, ...options, markerIds: true }, { field: 'files' });
  // Batches keep the files' order, so analyses[k] is files[k] (its content as sent).
  result.output = rememberStructuralMarkers(call, result.output, markers, analyses, work.flat());
  call.services.metrics.observeCompress('compress-code-structural', (performance.now() - started) / 1000);
  call.report({
    inputTokens: result.original_tokens,
    outputTokens: result.compressed_tokens,
    fidelity: result.fidelity,
    model: options.model ?? null,
    inputText: options.query ?? files[0]?.path ?? null,
  });
  return result;
}

/**
 * A structural output's markers name one layout per file: each file's ref (a hash of the file as sent
 * and its hidden spans, as the single-file path computes it) is written over the placeholders, and the
 * layout stored for expand.
 */
function rememberStructuralMarkers(call: Call, output: string, marks: StructuralMarks[] | undefined, analyses: FileAnalysis[], files: StructuralFile[]): string {
  if (!marks?.length) return output;
  const refs: [at: number, ref: string][] = [];
  for (const m of marks) {
    const original = files[m.file]!.content;
    const spans = originalSpans(original, analyses[m.file]!.content, m.spans);
    const textHash = textHashOf(original);
    const ref = markerRef(textHash, spans);
    for (const at of m.refAt) refs.push([at, ref]);
    rememberMarkers(call.services, call.principal.userId, original, { ref, textHash, spans });
  }
  refs.sort((a, b) => a[0] - b[0]);
  let out = '';
  let pos = 0;
  for (const [at, ref] of refs) {
    out += output.slice(pos, at) + ref;
    pos = at + ref.length;
  }
  return out + output.slice(pos);
}
