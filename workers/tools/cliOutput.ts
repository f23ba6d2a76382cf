// filter_cli_output: what an agent needs from a test runner's, compiler's or package manager's output
// is its failures, errors and summary. Lines are kept verbatim or folded whole; each run of folded
// lines becomes one marker that counts what it hides (passed tests, progress, library stack frames).
import { ANSI } from '../shared/ansi.js';

export type CliTool = 'vitest' | 'jest' | 'pytest' | 'cargo' | 'go' | 'tsc' | 'npm' | 'generic';

export interface CliFilterOptions {
  /** The command that produced the output (`npx vitest run`, `cargo test`): a hint for `detected`. */
  command?: string;
  /** Most lines kept of one failure's detail block before the rest is folded. */
  blockLines?: number;
}

export interface CliFilterResult {
  filtered_output: string;
  detected: CliTool;
  lines_in: number;
  lines_out: number;
  /** Lines that report a failed test (a test may have several: its status line, its header). */
  failure_lines: number;
  /** Lines that report an error (compiler diagnostics, thrown errors, npm ERR!). */
  error_lines: number;
  summary: string[];
  folded: { passed: number; progress: number; frames: number; other: number };
}

/** A passing test, one per line, in the formats of the common runners. */
const PASSED = [
  /^\s*(?:✓|✔|√)\s/, // vitest, jest, mocha
  /^\s*PASS\s+\S/, // jest file line
  /\sPASSED(?:\s+\[\s*\d+%\])?\s*$/, // pytest -v
  /^test \S+ \.\.\. ok$/, // cargo
  /^(?:=== RUN|=== PAUSE|=== CONT|\s*--- PASS:)\s/, // go test -v
  /^\s*[.sx]+\s*(?:\[\s*\d+%\])?\s*$/, // pytest dots
];
/** Progress and bookkeeping that says nothing once the run is over. */
const PROGRESS = [
  /^\s*(?:Compiling|Checking|Downloading|Downloaded|Fresh|Updating|Locking|Blocking|Fetching|Resolving|Installing|Unpacking|Building|Collecting|Using cached)\s/,
  /^\s*(?:Receiving|Resolving|Counting|Compressing|Enumerating|Writing) (?:objects|deltas)/,
  /^\s*(?:npm (?:http|timing|sill|verb)|reify|idealTree)\b/,
  /^\s*[⠁-⣿◐◓◑◒]\s+\S/, // spinners (not `-` or `|`: diffs and tables start so)
  /\[[#=>.\s-]{8,}\]|\s\d{1,3}%\s*$/, // bars, bare percentages
];
/** A failure or error that starts a block of detail. */
const FAILURE = [
  /^\s*(?:FAIL|FAILED|ERROR)\b/, // vitest/jest FAIL, pytest FAILED/ERROR lines
  /\s(?:FAILED|ERROR)(?:\s+\[\s*\d+%\])?\s*$/, // pytest -v
  /^\s*(?:×|✗|✖|✕)\s/,
  /^_{3,} .+ _{3,}$/, // pytest failure header
  /^---- \S+ stdout ----$/, // cargo
  /^\s*--- FAIL:/, // go
  /^test \S+ \.\.\. FAILED$/, // cargo
  /panicked at /,
  /^failures:$/, // cargo: the list of failed tests follows
];
const ERROR = [
  /\berror(?:\[E\d+\])?:/i, // rustc, gcc, generic
  /: error TS\d+:/, // tsc
  /^\s*(?:npm ERR!|npm error|ERR!)/,
  /^\s*(?:\w+Error|\w+Exception)(?::|$)/, // thrown errors
  /^Traceback \(most recent call last\)/,
  /^E\s{2,}\S/, // pytest detail
];
const SUMMARY = [
  /^\s*(?:Test Files|Tests|Test Suites|Snapshots|Time|Duration)\s{1,}\S/, // vitest, jest
  /^=+ .*\b(?:passed|failed|error|errors|skipped|no tests ran)\b.* in [\d.]+s.*=+$/, // pytest
  /^=+ short test summary info =+$/,
  /^test result: /, // cargo
  /^(?:ok|FAIL)\s+\S+\s+[\d.]+s$|^FAIL$|^PASS$/, // go
  /^\s*(?:added|removed|changed|updated|audited) \d+ packages?/, // npm
  /^\s*(?:up to date|found \d+ vulnerabilit|\d+ vulnerabilit)/,
  /^\s*Finished\s/, // cargo
  /^Found \d+ errors?/, // tsc --pretty
  /^\s*\d+ (?:passing|failing|pending)\b/, // mocha
];
/** Stack frames inside libraries (not the project's own code). */
const LIBRARY_FRAME = /(?:node_modules|site-packages|dist-packages|\/rustc\/[0-9a-f]+\/library|\/usr\/lib\/|node:internal|<frozen )/;
const FRAME = /^\s+at\s|^\s+File ".+", line \d+|^\s+\d+: |^\s+at \S+:\d+/;
const RUST_FRAME_LOCATION = /^\s+at \/rustc\//;

const matches = (patterns: RegExp[], line: string) => patterns.some((p) => p.test(line));

/** The runner or compiler, from the command when given, else from the output's own marks. */
export function detectCliTool(lines: readonly string[], command = ''): CliTool {
  const c = command.toLowerCase();
  for (const tool of ['vitest', 'jest', 'pytest', 'cargo', 'tsc', 'npm'] as const) if (c.includes(tool)) return tool;
  if (/\bgo (?:test|build|vet)\b/.test(c)) return 'go';
  const text = lines.slice(0, 400).join('\n');
  if (/^\s*RUN\s+v\d/m.test(text) || /^\s*Test Files\s/m.test(text)) return 'vitest';
  if (/^\s*Test Suites:/m.test(text)) return 'jest';
  if (/^=+ test session starts =+$/m.test(text)) return 'pytest';
  if (/^test result: /m.test(text) || /^running \d+ tests?$/m.test(text)) return 'cargo';
  if (/^(?:ok|FAIL)\s+\S+\s+[\d.]+s$/m.test(text) || /^--- (?:PASS|FAIL):/m.test(text)) return 'go';
  if (/\(\d+,\d+\): error TS\d+:/.test(text)) return 'tsc';
  if (/^\s*(?:added|removed|changed|up to date) .*packages?/m.test(text) || /^npm (?:ERR!|error|warn)/m.test(text)) return 'npm';
  return 'generic';
}

type Kind = 'passed' | 'progress' | 'failure' | 'error' | 'summary' | 'blank' | 'other';

function classify(line: string): Kind {
  if (line.trim() === '') return 'blank';
  if (matches(SUMMARY, line)) return 'summary';
  if (matches(FAILURE, line)) return 'failure';
  if (matches(ERROR, line)) return 'error';
  if (matches(PASSED, line)) return 'passed';
  if (matches(PROGRESS, line)) return 'progress';
  return 'other';
}

const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Marker for a run of folded lines: `[… 30 passed tests, 2 progress lines]`. */
function marker(f: CliFilterResult['folded']): string {
  const parts: string[] = [];
  if (f.passed) parts.push(counted(f.passed, 'passed test', 'passed tests'));
  if (f.progress) parts.push(counted(f.progress, 'progress line', 'progress lines'));
  if (f.frames) parts.push(counted(f.frames, 'library frame', 'library frames'));
  if (f.other) parts.push(counted(f.other, 'other line', 'other lines'));
  return `[… ${parts.join(', ')}]`;
}

export function filterCliOutput(input: string, options: CliFilterOptions = {}): CliFilterResult {
  const blockLines = options.blockLines ?? 40;
  // A carriage return redraws the line: only what was drawn last is on the screen.
  const lines = input.replace(ANSI, '').replace(/\r\n/g, '\n').split('\n').map((l) => l.slice(l.lastIndexOf('\r') + 1));
  if (lines.at(-1) === '') lines.pop();
  const detected = detectCliTool(lines, options.command);
  const kinds = lines.map(classify);
  const structured = kinds.some((k) => k === 'failure' || k === 'error' || k === 'summary' || k === 'passed');

  const out: string[] = [];
  const total = { passed: 0, progress: 0, frames: 0, other: 0 };
  let run = { passed: 0, progress: 0, frames: 0, other: 0 };
  const fold = (key: keyof typeof run) => {
    run[key]++;
    total[key]++;
  };
  const flush = () => {
    if (run.passed + run.progress + run.frames + run.other === 0) return;
    out.push(marker(run));
    run = { passed: 0, progress: 0, frames: 0, other: 0 };
  };
  const keep = (line: string) => {
    flush();
    out.push(line);
  };
  let failures = 0;
  let errors = 0;
  const summary: string[] = [];
  let block = -1; // lines left in the current failure's detail block; -1: outside one
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const kind = kinds[i]!;
    if (kind === 'failure' || kind === 'error') {
      if (kind === 'failure') failures++;
      else errors++;
      keep(line);
      block = blockLines;
      continue;
    }
    if (kind === 'summary') {
      summary.push(line.trim());
      keep(line);
      block = -1;
      continue;
    }
    if (block >= 0) {
      // Detail of a failure: kept, except library stack frames (and the location lines under them).
      if (kind === 'blank') {
        keep(line);
        // A blank line ends the block unless the detail continues right after it (pytest, vitest diffs).
        const next = kinds[i + 1];
        if (next === undefined || next === 'passed' || next === 'progress' || next === 'blank') block = -1;
        continue;
      }
      if (FRAME.test(line) && LIBRARY_FRAME.test(line)) {
        fold('frames');
        continue;
      }
      // A Rust backtrace frame is two lines: `  3: name`, then `at /rustc/…/library/…` for the standard library.
      if (/^\s+\d+: /.test(line) && RUST_FRAME_LOCATION.test(lines[i + 1] ?? '')) {
        fold('frames');
        i++;
        continue;
      }
      if (block > 0 && kind !== 'passed' && kind !== 'progress') {
        keep(line);
        block--;
        continue;
      }
      block = -1;
    }
    if (kind === 'passed') fold('passed');
    else if (kind === 'progress') fold('progress');
    else if (kind === 'blank') {
      if (out.length && out.at(-1) !== '' && run.passed + run.progress + run.frames + run.other === 0) out.push('');
    } else if (structured) fold('other');
    else keep(line);
  }
  flush();
  while (out.at(-1) === '') out.pop();
  return {
    filtered_output: out.join('\n') + (input.endsWith('\n') && out.length ? '\n' : ''),
    detected,
    lines_in: lines.length,
    lines_out: out.length,
    failure_lines: failures,
    error_lines: errors,
    summary,
    folded: total,
  };
}
