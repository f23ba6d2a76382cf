import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { SMOKE } from '../lib/smoke.js';

export interface BenchFile {
  path: string;
  content: string;
}

export interface Corpus {
  label: string;
  root: string;
  files: BenchFile[];
  skipped: number;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export function walk(dir: string, exts: string[], skipDirs: string[] = []): string[] {
  const out: string[] = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) {
      if (!skipDirs.includes(name)) out.push(...walk(p, exts, skipDirs));
    } else if (exts.some((e) => name.endsWith(e))) out.push(p);
  }
  return out;
}

/** Read files as strict UTF-8 (files that are not are counted, not sent: the engine would 422 them). */
export function load(label: string, root: string, paths: string[], capBytes = Infinity): Corpus {
  const files: BenchFile[] = [];
  let skipped = 0;
  let total = 0;
  for (const p of paths) {
    if (total >= capBytes) break;
    try {
      const content = decoder.decode(readFileSync(p));
      if (content.includes('\u0000')) throw new Error('nul');
      files.push({ path: relative(root, p), content });
      total += content.length;
    } catch {
      skipped++;
    }
  }
  return { label, root, files, skipped };
}

export function pythonStdlib(): string {
  try {
    return execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  } catch {
    return '/usr/lib/python3';
  }
}

/** Unzip a subset of the JDK sources once into a temp dir. */
export function jdkSources(tmp: string): string | null {
  let java: string;
  try {
    java = execFileSync('readlink', ['-f', execFileSync('which', ['java'], { encoding: 'utf8' }).trim()], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
  const zip = join(dirname(dirname(java)), 'lib', 'src.zip');
  // Debian ships src.zip as a symlink into the separate openjdk-N-source package.
  const version = /java-(\d+)-openjdk/.exec(java)?.[1];
  // Never under BENCH_SMOKE: a test must not install packages (nor reach the network).
  if (!existsSync(zip) && version && !SMOKE) spawnSync('apt-get', ['install', '-y', `openjdk-${version}-source`], { stdio: 'ignore' });
  if (!existsSync(zip)) return null;
  const dest = join(tmp, 'jdk');
  if (!existsSync(join(dest, 'java.base'))) {
    mkdirSync(dest, { recursive: true });
    spawnSync('unzip', ['-q', '-o', zip, 'java.base/java/util/*', 'java.base/java/io/*', '-d', dest], { stdio: 'ignore' });
  }
  return dest;
}

/** Debian sources for Go and Rust; installed when missing (the bench machine is root in a container), except under BENCH_SMOKE. */
export function ensureDebSources(): { go: string | null; rust: string | null } {
  const findGo = (): string | null => ['/usr/share/go-1.19/src', '/usr/lib/go-1.19/src'].find((d) => existsSync(d)) ?? null;
  const findRust = (): string | null => {
    if (!existsSync('/usr/src')) return null;
    const dir = readdirSync('/usr/src').find((d) => d.startsWith('rustc-'));
    return dir && existsSync(join('/usr/src', dir, 'library')) ? join('/usr/src', dir, 'library') : null;
  };
  if ((!findGo() || !findRust()) && !SMOKE) {
    const missing = [!findGo() ? 'golang-1.19-src' : null, !findRust() ? 'rust-src' : null].filter((x): x is string => x !== null);
    let r = spawnSync('apt-get', ['install', '-y', ...missing], { stdio: 'ignore' });
    if (r.status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'ignore' });
      r = spawnSync('apt-get', ['install', '-y', ...missing], { stdio: 'ignore' });
    }
  }
  return { go: findGo(), rust: findRust() };
}

export function nodeHeaders(): string | null {
  const candidates: string[] = [];
  try {
    const dir = execFileSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (dir && dir !== 'undefined') candidates.push(join(dir, 'include', 'node'));
  } catch {
    /* fall through */
  }
  const gyp = join(process.env.HOME ?? '/root', '.cache', 'node-gyp');
  if (existsSync(gyp)) for (const v of readdirSync(gyp)) candidates.push(join(gyp, v, 'include', 'node'));
  candidates.push('/usr/include/node');
  return candidates.find((d) => existsSync(join(d, 'node.h'))) ?? null;
}
