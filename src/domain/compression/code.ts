import type { Principal } from '../../auth/principal.js';
import { HttpError } from '../../http/errors.js';
import { TaskError } from '../../pool/pool.js';
import type { Services } from '../../services.js';
import type { CompressCodeInput, FileAnalysis, StructuralFile, StructuralOptions } from '../../../workers/code/index.js';
import { enforceQuota } from '../accounts/quota.js';

/** Worker-side input errors become the spec's 422; BlastRadiusInputError keeps its name for MCP. */
function mapCodeError(err: unknown, field: string): never {
  if (err instanceof TaskError && err.name === 'CodeInputError') {
    throw new HttpError(422, [{ loc: ['body', field], msg: err.message, type: 'value_error.encoding' }]);
  }
  if (err instanceof TaskError && err.name === 'BlastRadiusInputError') {
    throw new HttpError(422, [{ loc: ['body', 'focus_symbols'], msg: err.message, type: 'BlastRadiusInputError' }]);
  }
  throw err;
}

export async function compressCodeForCaller(services: Services, principal: Principal, input: CompressCodeInput, signal?: AbortSignal) {
  await enforceQuota(services, principal);
  const started = performance.now();
  const result = await services.pool.run('compressCode', input, signal).catch((err) => mapCodeError(err, 'code'));
  services.metrics.observeCompress('compress-code', (performance.now() - started) / 1000);
  return result;
}

/** Files per analysis task: large enough to amortise the hop, small enough to spread over every thread. */
function batches(files: StructuralFile[], parts: number): StructuralFile[][] {
  const target = Math.max(1, Math.ceil(files.reduce((s, f) => s + f.content.length, 0) / parts));
  const out: StructuralFile[][] = [];
  let current: StructuralFile[] = [];
  let size = 0;
  for (const file of files) {
    current.push(file);
    size += file.content.length;
    if (size >= target) {
      out.push(current);
      current = [];
      size = 0;
    }
  }
  if (current.length) out.push(current);
  return out;
}

/** Parsing spreads across the pool; one task then builds the cross-file graph, ranks and renders. */
export async function structuralForCaller(
  services: Services,
  principal: Principal,
  input: { files: StructuralFile[] } & StructuralOptions,
  signal?: AbortSignal,
) {
  await enforceQuota(services, principal);
  const started = performance.now();
  const { files, ...options } = input;
  const parts = Math.max(1, services.pool.stats().threads * 4);
  const analysed = await Promise.all(
    batches(files, parts).map((batch) =>
      services.pool.run('analyzeFiles', { files: batch.map((f) => ({ path: f.path, content: f.content, language: f.language ?? undefined })) }, signal),
    ),
  ).catch((err) => mapCodeError(err, 'files'));
  const analyses: FileAnalysis[] = analysed.flat();
  const result = await services.pool.run('structural', { analyses, ...options }, signal).catch((err) => mapCodeError(err, 'files'));
  services.metrics.observeCompress('compress-code-structural', (performance.now() - started) / 1000);
  return result;
}
