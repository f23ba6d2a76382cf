// `gc code DIR|FILE`: structural compression of a repository (ranked units rendered within a token
// budget, optionally guided by a query or focus symbols), or one file's skeleton.
import { readFile } from 'node:fs/promises';
import { call } from './client.js';
import { CliError, EXIT, fidelityOption, fmt, modeOf, note, positiveInt, printJson, type GlobalOptions } from './common.js';
import { CODE_EXTENSIONS, kindOf, walk } from './files.js';

export interface CodeOptions {
  query?: string;
  focus?: string;
  budget?: string;
  fidelity?: string;
  model?: string;
  language?: string;
}

const engineError = (err: unknown) => {
  const name = (err as Error)?.name ?? '';
  if (name === 'CodeInputError' || name === 'BlastRadiusInputError') return new CliError((err as Error).message, EXIT.usage);
  return err;
};

export async function codeCommand(input: string, opts: CodeOptions, global: GlobalOptions): Promise<number> {
  const mode = modeOf(global);
  const kind = await kindOf(input);
  const fidelity = opts.fidelity ? fidelityOption(opts.fidelity) : undefined;
  const model = opts.model ?? null;

  if (kind !== 'dir') {
    const code = kind === 'stdin' ? await (await import('./files.js')).readStdin() : await readFile(input, 'utf8');
    const request = { code, language: opts.language ?? null, filename: kind === 'file' ? input : null, fidelity: fidelity ?? 'balanced', model };
    let result: any;
    if (mode.kind === 'local') {
      const { compressCode } = await import('../../../workers/code/index.js');
      try {
        result = compressCode(request);
      } catch (err) {
        throw engineError(err);
      }
    } else result = await call(mode, 'POST', '/v1/compress-code', request);
    if (global.json) printJson({ file: kind === 'file' ? input : '-', ...result });
    else {
      process.stdout.write(result.skeleton.endsWith('\n') ? result.skeleton : result.skeleton + '\n');
      note(`${fmt(result.original_tokens)} → ${fmt(result.compressed_tokens)} tokens (${result.savings_percent}% saved, ${result.language}, ${mode.kind})`);
    }
    return EXIT.ok;
  }

  const { files } = await walk(input, { extensions: CODE_EXTENSIONS, maxBytes: 2 * 1024 * 1024 });
  if (!files.length) throw new CliError(`no source files under ${input}`, EXIT.usage);
  const focus = opts.focus ? opts.focus.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
  const request = {
    files,
    query: opts.query?.trim() || null,
    ...(focus?.length ? { focus_symbols: focus } : {}),
    ...(opts.budget ? { token_budget: positiveInt(opts.budget, '--budget') } : {}),
    ...(fidelity ? { fidelity } : {}),
    model,
  };
  note(`${files.length} source files, ${mode.kind === 'local' ? 'ranking in-process' : 'sent to ' + mode.url}…`);
  let result: any;
  if (mode.kind === 'local') {
    const { compressStructural } = await import('../../../workers/code/index.js');
    try {
      result = compressStructural(request);
    } catch (err) {
      throw engineError(err);
    }
  } else result = await call(mode, 'POST', '/v1/compress-code/structural', request);
  if (global.json) printJson(result);
  else {
    process.stdout.write(result.output.endsWith('\n') ? result.output : result.output + '\n');
    note(`${result.files} files, ${result.units} units: ${fmt(result.original_tokens)} → ${fmt(result.compressed_tokens)} tokens (${result.savings_percent}% saved, budget ${fmt(result.token_budget)}, ${mode.kind})`);
  }
  return result.result_incomplete ? EXIT.failure : EXIT.ok;
}
