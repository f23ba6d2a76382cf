// Resolve the package root from this file's location so model paths work both from the TS
// sources (vitest) and from dist/workers/embed/*.js.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return (root = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}

export const DEFAULT_MODEL_FOLDER = 'glove-sif-100d';

/** EMBEDDING_MODEL_DIR (absolute, or relative to the package root) or the shipped model. */
export function modelDir(): string {
  const env = process.env.EMBEDDING_MODEL_DIR;
  if (env && env.trim()) return resolve(packageRoot(), env.trim());
  return join(packageRoot(), 'models', DEFAULT_MODEL_FOLDER);
}
