// The command line's conventions (issue 50): a name of its own, --help with examples and exit codes,
// shell completion generated from the command tree, one-line errors (JSON under --json), and one result
// shape with one set of figures in local and server mode for the same file.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runNode, type Run } from '../helpers/runNode.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const CLI = join(process.cwd(), 'dist/src/cli/gc.js');
const FILE = join(process.cwd(), 'docs/architecture.md');


/** Runs the CLI with pipes (stdin, stdout and stderr are not terminals) and no GC_URL/GC_KEY unless given. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runNode(CLI, args, cliEnv(env));
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('the command line has a name of its own', () => {
  it('package.json installs semcomp, not gc (Debian graphviz owns /usr/bin/gc)', () => {
    const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ semcomp: 'dist/src/cli/gc.js' });
  });

  it('--help lists examples and the exit codes 0-4; compress --help has its own examples', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: semcomp /);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('$ semcomp compress README.md');
    for (const code of ['0  done', '1  something failed', '2  wrong arguments', '3  missing or refused credentials', '4  the server is unreachable']) {
      expect(help.stdout).toContain(code);
    }
    const sub = await cli(['compress', '--help']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain('Examples:');
    expect(sub.stdout).toContain('--fidelity');
  });

  it('an unknown option is one line and a hint, not the help; under --json it is a JSON error with the same code', async () => {
    const run = await cli(['compress', FILE, '--fidleity', 'outline']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe("semcomp: unknown option '--fidleity' (did you mean --fidelity?)\nRun 'semcomp compress --help' for usage and examples.\n");
    const json = await cli(['--json', 'compress', FILE, '--fidleity', 'outline']);
    expect(json.code).toBe(2);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'usage', message: "unknown option '--fidleity' (did you mean --fidelity?)", exit_code: 2 } });
  });
});

describe('shell completion from the command tree', () => {
  it('bash: the script parses (bash -n) and completes commands, subcommands and options', async () => {
    const run = await cli(['completion', 'bash']);
    expect(run.code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'semcomp-completion-'));
    const script = join(dir, 'semcomp.bash');
    writeFileSync(script, run.stdout);
    const parsed = spawnSync('bash', ['-n', script], { encoding: 'utf8' });
    expect(parsed.status, parsed.stderr).toBe(0);
    const complete = (words: string[]) => {
      const r = spawnSync('bash', ['-c', `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _semcomp_complete; echo "\${COMPREPLY[*]}"`], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.trim().split(' ');
    };
    expect(complete(['semcomp', 'co'])).toEqual(['compress', 'code', 'completion']);
    expect(complete(['semcomp', 'keys', ''])).toEqual(expect.arrayContaining(['list', 'create', 'revoke', 'rotate']));
    expect(complete(['semcomp', '--json', 'compress', '--fi'])).toEqual(['--fidelity']);
    expect(complete(['semcomp', 'keys', 'rotate', '--gr'])).toEqual(['--grace-days']);
  });

  it('zsh and fish scripts name every command; an unknown shell is a usage error', async () => {
    const zsh = await cli(['completion', 'zsh']);
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -o default -F _semcomp_complete semcomp');
    const fish = await cli(['completion', 'fish']);
    expect(fish.code).toBe(0);
    for (const command of ['compress', 'code', 'keys', 'usage', 'bench', 'completion']) expect(fish.stdout).toContain(`-a ${command} `);
    expect(fish.stdout).toContain("-n '__fish_seen_subcommand_from compress' -l fidelity -s f -r");
    if (spawnSync('fish', ['--version']).status === 0) {
      expect(spawnSync('fish', ['-n', '-c', fish.stdout]).status).toBe(0);
    }
    const bad = await cli(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("no completion for shell 'tcsh'");
  });
});

describe('local and server mode: one shape, one set of figures', () => {
  it('the same file gives the same fields and the same token counts and text in both modes', async () => {
    const local = await cli(['--json', 'compress', FILE, '-f', 'outline']);
    const remote = await cli(['--json', 'compress', FILE, '-f', 'outline'], { GC_URL: server.url, GC_KEY: server.ownerKey });
    expect(local.code, local.stderr).toBe(0);
    expect(remote.code, remote.stderr).toBe(0);
    const l = JSON.parse(local.stdout);
    const r = JSON.parse(remote.stdout);
    expect(Object.keys(l).sort()).toEqual(Object.keys(r).sort());
    expect(l).toHaveProperty('compression_ratio');
    expect(l).not.toHaveProperty('ratio');
    for (const field of ['original_tokens', 'compressed_tokens', 'tokens_saved', 'savings_percent', 'compression_ratio', 'fidelity', 'mode', 'tokenizer', 'compressed_text']) {
      expect(l[field], field).toEqual(r[field]);
    }
    expect(l.original_tokens).toBeGreaterThan(1000);
    expect(l.original_id).toBeNull(); // locally no original is kept
  }, 60_000);

  it("the server records the CLI's calls under client 'semcomp-cli' and, without a model, model 'unspecified'", async () => {
    const run = await cli(['--json', 'compress', FILE], { GC_URL: server.url, GC_KEY: server.ownerKey });
    expect(run.code, run.stderr).toBe(0);
    await server.app.services.background.drain();
    const clients = (await server.request('GET', '/v1/usage/by-client', { key: server.ownerKey })).json.data as { client: string; calls: number }[];
    expect(clients.find((c) => c.client === 'semcomp-cli')?.calls).toBeGreaterThanOrEqual(1);
    const models = (await server.request('GET', '/v1/usage/by-model', { key: server.ownerKey })).json.data as { model: string }[];
    expect(models.map((m) => m.model)).toContain('unspecified');
    expect(models.map((m) => m.model)).not.toContain('unknown');
  }, 60_000);
});
