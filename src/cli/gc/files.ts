// Reading what a command is given: a file, a folder (walked), or standard input.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { CliError, EXIT } from './common.js';

export interface InputFile {
  /** Relative to the folder given (or the file's path as given). */
  path: string;
  content: string;
}

const SKIP_DIRS = new Set(['node_modules', 'dist', 'build', 'target', '__pycache__', 'vendor']);
export const CODE_EXTENSIONS = new Set(['.py', '.js', '.jsx', '.mjs', '.cjs', '.ts', '.tsx', '.mts', '.cts', '.java', '.go', '.rs', '.c', '.h', '.cc', '.cpp', '.cxx', '.hpp', '.hh']);

const extOf = (name: string) => {
  const i = name.lastIndexOf('.');
  return i > 0 ? name.slice(i).toLowerCase() : '';
};

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function kindOf(path: string): Promise<'file' | 'dir' | 'stdin'> {
  if (path === '-') return 'stdin';
  const s = await stat(path).catch(() => null);
  if (!s) throw new CliError(`no such file or folder: ${path}`, EXIT.usage);
  return s.isDirectory() ? 'dir' : 'file';
}

/** Text files under a folder, sorted; binary files (a NUL byte), larger ones and dot/build folders are left out. */
export async function walk(root: string, opts: { extensions?: Set<string> | null; maxBytes: number }): Promise<{ files: InputFile[]; skipped: string[] }> {
  const files: InputFile[] = [];
  const skipped: string[] = [];
  const visit = async (dir: string) => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && !SKIP_DIRS.has(e.name)) await visit(full);
        continue;
      }
      if (!e.isFile() || e.name.startsWith('.')) continue;
      if (opts.extensions && !opts.extensions.has(extOf(e.name))) continue;
      const rel = relative(root, full);
      const size = (await stat(full)).size;
      if (size === 0) continue;
      if (size > opts.maxBytes) {
        skipped.push(rel);
        continue;
      }
      const buf = await readFile(full);
      if (buf.subarray(0, 8000).includes(0)) continue;
      files.push({ path: rel, content: buf.toString('utf8') });
    }
  };
  await visit(root);
  return { files, skipped };
}
