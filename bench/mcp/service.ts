import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// Rate limits off for the measurement: the bench is the only client.
const NO_LIMITS = { RATE_LIMIT_FREE: '100000000', RATE_LIMIT_PRO: '100000000', RATE_LIMIT_TEAM: '100000000', RATE_LIMIT_ENTERPRISE: '100000000' };

/** The bench service's environment: embedded database in `dataDir`, any free port, two pool threads. */
export function serviceEnv(dataDir: string): NodeJS.ProcessEnv {
  return { DATA_DIR: dataDir, DATABASE_URL: '', ...NO_LIMITS, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_OWNER: 'false', POOL_THREADS: '2' };
}

/** A key on `plan`, made with the CLI before the service starts (the CLI opens the embedded database first). */
export function newKey(root: string, dataDir: string, plan: string): string {
  const out = execFileSync(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'create', '--plan', plan], { env: { ...process.env, ...serviceEnv(dataDir) } });
  return (JSON.parse(out.toString()) as { key: string }).key;
}
