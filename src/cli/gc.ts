#!/usr/bin/env node
// `gc`: the service from a terminal or a script. Against a server (GC_URL, GC_KEY) or local, running
// the engines in-process with no server and no database. `--json` prints one JSON document on stdout;
// progress goes to stderr only when it is a terminal. Exit codes: src/cli/gc/common.ts EXIT.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { CliError, EXIT, type GlobalOptions } from './gc/common.js';

const version = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
})();

const program = new Command('gc')
  .description('Semantic compression from the command line: against a server (GC_URL, GC_KEY) or locally, in-process')
  .version(version)
  .addOption(new Option('--url <url>', 'server base URL (server mode)').env('GC_URL'))
  .addOption(new Option('--key <key>', 'API key for the server').env('GC_KEY'))
  .option('--local', 'run the engines in-process even when GC_URL is set')
  .option('--json', 'print one JSON document on stdout (for scripts)')
  .showHelpAfterError()
  .exitOverride();

// `gc … | head`: the reader went away; stop quietly instead of failing on EPIPE.
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
  .description("run one of the project's benchmarks (gc bench --list); arguments after -- go to it")
  .argument('[name]')
  .argument('[args...]')
  .option('--list', 'list the benchmarks')
  .action(run(async (name: string | undefined, args: string[], opts, cmd: Command) => (await import('./gc/bench.js')).benchCommand(name, args, opts, globals(cmd))));

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // --help and --version end here with code 0; a wrong argument is a usage error.
    exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else if (err instanceof CliError) {
    process.stderr.write(`gc: ${err.message}\n`);
    exitCode = err.exitCode;
  } else {
    process.stderr.write(`gc: ${(err as Error)?.stack ?? String(err)}\n`);
    exitCode = EXIT.failure;
  }
}
process.exitCode = exitCode;
