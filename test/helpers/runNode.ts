import { spawn } from 'node:child_process';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a Node script with pipes (not terminals) and resolves with its exit code and output; `input` goes to stdin. */
export function runNode(script: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** The environment without a server to call or a database to open, plus `env`. */
export function cliEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { GC_URL: _u, GC_KEY: _k, DATABASE_URL: _d, ...base } = process.env;
  return { ...base, ...env };
}
