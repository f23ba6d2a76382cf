#!/usr/bin/env node
// `semcomp`: the service from a terminal or a script. Against a server (GC_URL, GC_KEY) or local, running
// the engines in-process with no server and no database. `--json` prints one JSON document on stdout,
// errors included; notes and progress go to stderr only when it is a terminal. Exit codes: EXIT in
// src/cli/gc/common.ts. Named `semcomp` because Debian's graphviz owns /usr/bin/gc (README).
import { Command, CommanderError, Option } from 'commander';
import { CliError, EXIT, exitName, NAME, VERSION, type GlobalOptions } from './gc/common.js';

const EXAMPLES = `
Examples:
  $ ${NAME} compress README.md -f outline            the compressed text on stdout (local: no server needed)
  $ ${NAME} compress docs/ --json | jq .summary      a folder: a progress bar on a terminal, then a table
  $ cat notes.txt | ${NAME} compress - -q "errors"   stdin, the sections about a query first
  $ ${NAME} code src/ --budget 2000 -q router         a repository within a token budget
  $ GC_URL=http://localhost:8080 GC_KEY=gc_… ${NAME} usage    server mode: this month's usage
  $ eval "$(${NAME} completion bash)"                 shell completion (bash, zsh or fish)
  $ alias gc=${NAME}                                  the short name, if nothing else on your PATH is gc

Exit codes:
  0  done
  1  something failed (a document, the engine, a server error)
  2  wrong arguments or input (also a server 400, 404, 413 or 422)
  3  missing or refused credentials (server 401 or 403)
  4  the server is unreachable or busy (429 or 503)

With --json, an error is one JSON document on stdout: {"error": {"code": "usage", "message": "…", "exit_code": 2}}.
`;

const program = new Command(NAME)
  .description('Semantic compression from the command line: against a server (GC_URL, GC_KEY) or locally, in-process')
  .version(VERSION)
  .addOption(new Option('--url <url>', 'server base URL (server mode)').env('GC_URL'))
  .addOption(new Option('--key <key>', 'API key for the server').env('GC_KEY'))
  .option('--local', 'run the engines in-process even when GC_URL is set')
  .option('--json', 'print one JSON document on stdout (for scripts), errors included')
  .addHelpText('after', EXAMPLES)
  // Commander's own error line is replaced by ours (one line and a hint, or JSON): see the catch below.
  .configureOutput({ outputError: () => {} })
  .exitOverride();

// `semcomp … | head`: the reader went away; stop quietly instead of failing on EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
  throw err;
});

let exitCode: number = EXIT.ok;
const run = (fn: (...a: any[]) => Promise<number>) =>
  async (...args: any[]) => {
    exitCode = await fn(...args);
  };
const globals = (cmd: Command) => cmd.optsWithGlobals() as GlobalOptions;

program
  .command('compress')
  .description('compress a text file, a folder of text files (batches, progress bar, table of tokens saved) or - for stdin')
  .argument('<input>', 'FILE, DIR or -')
  .option('-f, --fidelity <level>', 'abstract, outline, balanced, detailed or raw', 'balanced')
  .option('-q, --query <text>', 'put the sections relevant to this query first')
  .option('-m, --model <name>', 'model whose tokenizer counts the tokens')
  .option('--ext <list>', 'folder: only these extensions (e.g. md,txt)')
  .option('--out <dir>', 'folder: write each compressed file here')
  .option('--max-bytes <n>', 'folder: skip files larger than this', String(1024 * 1024))
  .addHelpText('after', `\nExamples:\n  $ ${NAME} compress README.md -f outline\n  $ ${NAME} compress docs/ --ext md --out compressed/ --json\n  $ git diff | ${NAME} compress - -q "what changed in the router"\n`)
  .action(run(async (input: string, opts, cmd: Command) => (await import('./gc/compress.js')).compressCommand(input, opts, globals(cmd))));

program
  .command('code')
  .description('structural compression of a repository (ranked, within a token budget), or a FILE skeleton')
  .argument('<input>', 'DIR, FILE or -')
  .option('-q, --query <text>', 'rank units relevant to this query first')
  .option('--focus <symbols>', 'comma-separated symbols: their blast radius ranks first')
  .option('-b, --budget <tokens>', 'token budget of the output')
  .option('-f, --fidelity <level>', 'abstract, outline, balanced, detailed or raw')
  .option('-m, --model <name>', 'model whose tokenizer counts the tokens')
  .option('-l, --language <name>', 'FILE: language when the extension does not say')
  .action(run(async (input: string, opts, cmd: Command) => (await import('./gc/code.js')).codeCommand(input, opts, globals(cmd))));

const keys = program
  .command('keys')
  .description('API keys: on a server your own keys; locally (no GC_URL) the operator commands on the database (an embedded one only while no server holds it)');
keys
  .command('list')
  .description('list keys (local: --user USER_ID)')
  .option('--user <id>', 'local: the user whose keys to list')
  .action(run(async (opts, cmd: Command) => (await import('./gc/keys.js')).keysCommand('list', undefined, opts, globals(cmd))));
keys
  .command('create')
  .description('create a key (local: a new user with a key); the key is printed once')
  .option('--name <name>', 'key name')
  .option('--plan <plan>', 'local: free, pro, team or enterprise', 'free')
  .option('--email <email>', 'local: the new user\'s e-mail')
  .action(run(async (opts, cmd: Command) => (await import('./gc/keys.js')).keysCommand('create', undefined, opts, globals(cmd))));
keys
  .command('revoke')
  .description('revoke a key (local: --user USER_ID)')
  .argument('<key_id>')
  .option('--user <id>', 'local: the key\'s owner')
  .action(run(async (keyId: string, opts, cmd: Command) => (await import('./gc/keys.js')).keysCommand('revoke', keyId, opts, globals(cmd))));
keys
  .command('rotate')
  .description('rotate a key (server): a successor is printed once, the old key expires after the grace period')
  .argument('<key_id>')
  .option('--grace-days <n>', 'days the old key keeps working')
  .action(run(async (keyId: string, opts, cmd: Command) => (await import('./gc/keys.js')).keysCommand('rotate', keyId, opts, globals(cmd))));

program
  .command('usage')
  .description("this month's usage summary (server)")
  .action(run(async (_opts, cmd: Command) => (await import('./gc/usage.js')).usageCommand(globals(cmd))));

program
  .command('bench')
  .description(`run one of the project's benchmarks (${NAME} bench --list); arguments after -- go to it`)
  .argument('[name]')
  .argument('[args...]')
  .option('--list', 'list the benchmarks')
  .action(run(async (name: string | undefined, args: string[], opts, cmd: Command) => (await import('./gc/bench.js')).benchCommand(name, args, opts, globals(cmd))));

program
  .command('completion')
  .description('print a shell completion script: eval "$(semcomp completion bash)"')
  .argument('<shell>', 'bash, zsh or fish')
  .action(run(async (shell: string) => {
    process.stdout.write((await import('./gc/completion.js')).completionScript(program, shell));
    return EXIT.ok;
  }));

/** One error: a line on stderr (with a hint for usage errors), or under --json a JSON document on stdout. */
function report(message: string, code: number, hint: string | null): void {
  // --json may be what failed to parse, so the raw arguments decide too.
  const json = (program.opts() as GlobalOptions).json || process.argv.slice(2).includes('--json');
  if (json) process.stdout.write(JSON.stringify({ error: { code: exitName(code), message, exit_code: code } }) + '\n');
  else process.stderr.write(`${NAME}: ${message}\n${hint ? hint + '\n' : ''}`);
}

/** The command the failed parse was in, for the hint: `semcomp compress --help`. */
const helpHint = () => {
  const words = process.argv.slice(2).filter((w) => !w.startsWith('-'));
  const path: string[] = [];
  let at: Command = program;
  for (const w of words) {
    const sub = at.commands.find((c) => c.name() === w);
    if (!sub) break;
    path.push(w);
    at = sub;
  }
  return `Run '${[NAME, ...path].join(' ')} --help' for usage and examples.`;
};

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // --help and --version end here with code 0; a wrong argument is a usage error.
    exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    // 'commander.help': a command was missing and the help went to stderr already.
    if (exitCode !== EXIT.ok && err.code !== 'commander.help') report(err.message.replace(/^error: /, '').replace(/\n\((Did you mean [^)]*)\)/, (_m, s: string) => ` (${s[0]!.toLowerCase()}${s.slice(1)})`), exitCode, helpHint());
  } else if (err instanceof CliError) {
    report(err.message, err.exitCode, err.exitCode === EXIT.usage ? helpHint() : null);
    exitCode = err.exitCode;
  } else {
    report((err as Error)?.stack ?? String(err), EXIT.failure, null);
    exitCode = EXIT.failure;
  }
}
process.exitCode = exitCode;
