// `gc compress FILE|DIR|-`: one text compressed (its output on stdout), or a folder sent in batches
// with a live progress bar and a final table of tokens saved.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import cliProgress from 'cli-progress';
import type { Fidelity } from '../../../workers/shared/fidelity.js';
import { savingsPercent } from '../../../workers/shared/stats.js';
import { call, ndjson, send } from './client.js';
import { CliError, EXIT, fidelityOption, fmt, interactive, modeOf, note, positiveInt, printJson, table, type GlobalOptions, type Mode } from './common.js';
import type { CompressResponse } from '../../domain/compression/text.js';
import { kindOf, readStdin, walk, type InputFile } from './files.js';

export interface CompressOptions {
  fidelity?: string;
  query?: string;
  model?: string;
  ext?: string;
  out?: string;
  maxBytes?: string;
}

interface Settings {
  fidelity: Fidelity;
  query: string | null;
  model: string | null;
}

export interface FileResult {
  file: string;
  original_tokens: number;
  compressed_tokens: number;
  tokens_saved: number;
  savings_percent: number;
  compressed_text?: string;
  error: string | null;
}

/** Documents per batch (the spec's maximum) and request bytes per batch (under MAX_BODY_BYTES). */
const BATCH_DOCUMENTS = 50;
const BATCH_BYTES = 4 * 1024 * 1024;

/** The REST answer's fields (src/domain/compression/text.ts), so both modes print one shape. */
export type CompressResult = Omit<CompressResponse, 'quality'>;

/**
 * The engine exactly as the server runs it: with marker ids (markerIds), whose refs are hashes of the
 * text, so the output and its token counts equal the server's for the same file. Locally there is no
 * store of originals, so original_id is always null.
 */
async function compressLocal(text: string, s: Settings): Promise<CompressResult> {
  const { compressText } = await import('../../../workers/text/index.js');
  const r = await compressText({ text, fidelity: s.fidelity, query: s.query, model: s.model, markerIds: true });
  return {
    compressed_text: r.compressed_text,
    original_tokens: r.original_tokens,
    compressed_tokens: r.compressed_tokens,
    tokens_saved: r.tokens_saved,
    savings_percent: r.savings_percent,
    compression_ratio: r.ratio,
    fidelity: r.fidelity,
    mode: r.mode,
    tokenizer: r.tokenizer,
    original_id: null,
    ...(r.over_budget ? { budget_tokens: r.budget_tokens, over_budget: r.over_budget } : {}),
  };
}

async function compressOne(mode: Mode, text: string, s: Settings): Promise<CompressResult> {
  if (mode.kind === 'local') return compressLocal(text, s);
  return call(mode, 'POST', '/v1/compress', { text, fidelity: s.fidelity, query: s.query, model: s.model });
}

function batches(files: InputFile[]): InputFile[][] {
  const out: InputFile[][] = [];
  let current: InputFile[] = [];
  let bytes = 0;
  for (const f of files) {
    const size = Buffer.byteLength(f.content) + f.path.length + 64;
    if (current.length && (current.length >= BATCH_DOCUMENTS || bytes + size > BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(f);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

const row = (file: string, r: { original_tokens: number; compressed_tokens: number; compressed_text?: string }, keepText: boolean): FileResult => ({
  file,
  original_tokens: r.original_tokens,
  compressed_tokens: r.compressed_tokens,
  tokens_saved: r.original_tokens - r.compressed_tokens,
  savings_percent: savingsPercent(r.original_tokens, r.compressed_tokens),
  ...(keepText ? { compressed_text: r.compressed_text } : {}),
  error: null,
});

const failed = (file: string, error: string): FileResult => ({ file, original_tokens: 0, compressed_tokens: 0, tokens_saved: 0, savings_percent: 0, error });

/** Every file of the folder, each reported through `done` as it finishes. */
async function compressFolder(mode: Mode, files: InputFile[], s: Settings, keepText: boolean, done: (r: FileResult) => void): Promise<void> {
  if (mode.kind === 'local') {
    for (const f of files) {
      try {
        done(row(f.path, await compressLocal(f.content, s), keepText));
      } catch (err) {
        done(failed(f.path, (err as Error).message));
      }
      await new Promise((r) => setImmediate(r)); // let the progress bar draw
    }
    return;
  }
  for (const batch of batches(files)) {
    const res = await send(mode, 'POST', '/v1/batch-compress', { documents: batch.map((f) => ({ id: f.path, text: f.content, fidelity: s.fidelity, query: s.query, model: s.model })) }, {
      accept: 'application/x-ndjson',
    });
    for await (const line of ndjson(res)) {
      if (line.summary) continue;
      if (line.index === undefined) throw new CliError(`batch stopped: ${line.detail ?? line.error}`, line.error === 'quota_exceeded' ? EXIT.unavailable : EXIT.failure);
      const file = batch[line.index]!.path;
      done(line.error === null ? row(file, line, keepText) : failed(file, String(line.error)));
    }
  }
}

export function summarize(results: FileResult[]) {
  const ok = results.filter((r) => r.error === null);
  const original = ok.reduce((n, r) => n + r.original_tokens, 0);
  const compressed = ok.reduce((n, r) => n + r.compressed_tokens, 0);
  return {
    files: results.length,
    succeeded: ok.length,
    failed: results.length - ok.length,
    original_tokens: original,
    compressed_tokens: compressed,
    tokens_saved: original - compressed,
    savings_percent: savingsPercent(original, compressed),
  };
}

export async function compressCommand(input: string, opts: CompressOptions, global: GlobalOptions): Promise<number> {
  const mode = modeOf(global);
  const settings: Settings = { fidelity: fidelityOption(opts.fidelity), query: opts.query?.trim() || null, model: opts.model ?? null };
  const kind = await kindOf(input);

  if (kind !== 'dir') {
    const text = kind === 'stdin' ? await readStdin() : await readFile(input, 'utf8');
    if (!text.trim()) throw new CliError('nothing to compress: the input is empty', EXIT.usage);
    const result = await compressOne(mode, text, settings);
    if (global.json) printJson({ file: kind === 'stdin' ? '-' : input, ...result });
    else {
      process.stdout.write(result.compressed_text.endsWith('\n') ? result.compressed_text : result.compressed_text + '\n');
      note(`${fmt(result.original_tokens)} → ${fmt(result.compressed_tokens)} tokens (${result.savings_percent}% saved, ${settings.fidelity}, ${mode.kind})`);
    }
    return EXIT.ok;
  }

  const extensions = opts.ext ? new Set(opts.ext.split(',').map((e) => '.' + e.trim().replace(/^\./, '').toLowerCase())) : null;
  const { files, skipped } = await walk(input, { extensions, maxBytes: opts.maxBytes ? positiveInt(opts.maxBytes, '--max-bytes') : 1024 * 1024 });
  if (!files.length) throw new CliError(`no text files under ${input}`, EXIT.usage);

  const bar = interactive()
    ? new cliProgress.SingleBar(
        { stream: process.stderr, format: 'compressing |{bar}| {value}/{total} files | {saved} tokens saved | {file}', hideCursor: true, barsize: 30, fps: 20 },
        cliProgress.Presets.shades_classic,
      )
    : null;
  let saved = 0;
  // Ctrl-C: leave the terminal as it was (the bar hides the cursor), then the usual 130.
  const interrupted = () => {
    bar?.stop();
    process.exit(130);
  };
  if (bar) process.once('SIGINT', interrupted);
  bar?.start(files.length, 0, { saved: '0', file: '' });
  const results: FileResult[] = [];
  try {
    await compressFolder(mode, files, settings, Boolean(opts.out), (r) => {
      results.push(r);
      saved += r.tokens_saved;
      bar?.increment(1, { saved: fmt(saved), file: r.file.length > 40 ? '…' + r.file.slice(-39) : r.file });
    });
  } finally {
    bar?.stop();
    process.off('SIGINT', interrupted);
  }
  results.sort((a, b) => a.file.localeCompare(b.file));

  if (opts.out) {
    for (const r of results) {
      if (r.error !== null) continue;
      const target = join(opts.out, r.file);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, r.compressed_text!);
      delete r.compressed_text;
    }
  }
  const summary = summarize(results);
  if (global.json) printJson({ mode: mode.kind, fidelity: settings.fidelity, results, skipped, summary });
  else {
    table([
      ['file', 'original', 'compressed', 'saved', 'saved %', 'error'],
      ...results.map((r) => [r.file, r.original_tokens, r.compressed_tokens, r.tokens_saved, r.error ? '' : `${r.savings_percent}%`, r.error ?? '']),
      ['total', summary.original_tokens, summary.compressed_tokens, summary.tokens_saved, `${summary.savings_percent}%`, summary.failed ? `${summary.failed} failed` : ''],
    ]);
    if (skipped.length) note(`skipped (larger than --max-bytes): ${skipped.join(', ')}`);
  }
  return summary.failed ? EXIT.failure : EXIT.ok;
}
