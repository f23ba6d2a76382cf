// Shared pieces of the `gc` command line: exit codes, the mode (server or local), output helpers.
import { FIDELITIES, isFidelity, type Fidelity } from '../../../workers/shared/fidelity.js';
import { readFileSync } from 'node:fs';
import { cliSettings } from '../../config.js';

/** The command's name on the PATH (package.json "bin"); `gc` is an opt-in shell alias only (README). */
export const NAME = 'semcomp';

export const VERSION = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
})();

/** Sent on every server request, so the usage analytics name this client (docs/accounts.md "Clients"). */
export const USER_AGENT = `semantic-compression-cli/${VERSION}`;

/** Exit codes scripts can rely on (README "Command line"). */
export const EXIT = {
  ok: 0,
  /** The work ran and something failed (a document, an engine error, a server 5xx). */
  failure: 1,
  /** Wrong arguments or input (also a server 400/404/413/422). */
  usage: 2,
  /** Missing, invalid or insufficient credentials (server 401/403). */
  auth: 3,
  /** The server could not be reached, or answered 429/503. */
  unavailable: 4,
} as const;

/** The name of an exit code, as `error.code` in a --json error. */
export const exitName = (code: number) => (Object.entries(EXIT).find(([, v]) => v === code)?.[0] ?? 'failure');

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

export interface GlobalOptions {
  url?: string;
  key?: string;
  local?: boolean;
  json?: boolean;
}

/** Server mode when a URL is given (--url or GC_URL) and --local is not; local otherwise. */
export type Mode = { kind: 'server'; url: string; key: string | null } | { kind: 'local' };

export function modeOf(opts: GlobalOptions): Mode {
  const env = cliSettings();
  const url = opts.url ?? env.url;
  if (opts.local || !url) return { kind: 'local' };
  return { kind: 'server', url: url.replace(/\/+$/, ''), key: opts.key ?? env.key };
}

export function fidelityOption(value: string | undefined): Fidelity {
  const v = value ?? 'balanced';
  if (!isFidelity(v)) throw new CliError(`invalid fidelity '${v}'; valid values: ${FIDELITIES.join(', ')}`, EXIT.usage);
  return v;
}

export function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`${name} must be a positive integer, got '${value}'`, EXIT.usage);
  return n;
}

/** Progress and notes go to stderr only when it is a terminal: a pipe or a log stays clean. */
export const interactive = () => Boolean(process.stderr.isTTY);

export function note(message: string): void {
  if (interactive()) process.stderr.write(message + '\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export const fmt = (n: number) => n.toLocaleString('en-US');

/** A plain text table: first row is the header; numeric columns right-aligned. */
export function table(rows: (string | number)[][], out: NodeJS.WritableStream = process.stdout): void {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  const numeric = rows[0]!.map((_, i) => rows.slice(1).every((r) => typeof r[i] === 'number' || r[i] === ''));
  const widths = rows[0]!.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  out.write(line(cells[0]!) + '\n');
  out.write(widths.map((w) => '-'.repeat(w)).join('  ') + '\n');
  for (const r of cells.slice(1)) out.write(line(r) + '\n');
}
