// The built service (dist/src/main.js) as `npm run serve` starts it, on a given Node binary.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/lib/root.js';

const root = packageRoot();

export interface Service {
  child: ChildProcess;
  port: number;
  url: string;
  /** The owner key printed on stdout at the first start. */
  ownerKey: string;
  /** The fields of the 'listening' log line. */
  listening: Record<string, unknown>;
  /** Every JSON log line so far. */
  logs(): Record<string, unknown>[];
  output(): string;
  /** Null while running; the exit code or signal once it has exited. */
  exited(): string | null;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `bin dist/src/main.js` with `env` and resolves once it has logged 'listening' and printed the
 * owner key; rejects with its output if it exits first.
 */
export function startService(bin: string, env: Record<string, string | undefined>): Promise<Service> {
  const child = spawn(bin, [join(root, 'dist/src/main.js')], { cwd: root, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let exit: string | null = null;
  const exitedPromise = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = signal ?? String(code);
      resolve(code);
    }),
  );
  const logs = () =>
    stderr
      .split('\n')
      .slice(0, -1) // the last piece is an unfinished line (or empty)
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const output = () => `--- stdout\n${stdout.slice(-3000)}\n--- stderr\n${stderr.slice(-3000)}`;

  return new Promise((resolve, reject) => {
    const check = () => {
      const listening = logs().find((l) => l.msg === 'listening');
      const key = /Its API key[^\n]*\n\s*\n\s*(gc_[0-9a-f]{32})/.exec(stdout)?.[1];
      if (!listening || !key) return;
      child.stdout!.off('data', onOut);
      child.stderr!.off('data', onErr);
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const port = Number(listening.port);
      resolve({
        child,
        port,
        url: `http://127.0.0.1:${port}`,
        ownerKey: key,
        listening,
        logs,
        output,
        exited: () => exit,
        async stop() {
          if (exit === null) child.kill('SIGTERM');
          return exitedPromise;
        },
      });
    };
    const onOut = (d: Buffer) => {
      stdout += d.toString();
      check();
    };
    const onErr = (d: Buffer) => {
      stderr += d.toString();
      check();
    };
    child.stdout!.on('data', onOut);
    child.stderr!.on('data', onErr);
    child.once('error', reject);
    void exitedPromise.then((code) => reject(new Error(`${bin} dist/src/main.js exited (${code ?? exit}) before serving:\n${output()}`)));
  });
}
