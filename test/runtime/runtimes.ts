// The Node.js runtimes a runtime test can start the built service on: the one running the tests, plus
// Node 22 and 24 where a binary is found (scripts/ci/node.sh puts them in .cache/node; docs/runtime.md).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/lib/root.js';

const root = packageRoot();

export interface Runtime {
  label: string;
  /** The binary, or null when none was found (the reason is in `missing`). */
  bin: string | null;
  missing?: string;
}

/** What a runtime says about itself, and whether uWS v20.57's binary for its ABI loads there. */
export interface Probe {
  version: string;
  major: number;
  abi: string;
  glibc: string | null;
  uwsLoads: boolean;
  uwsWhy: string;
}

/** The uWS build that `auto` serves on where its binary loads (src/http/engine/uwsEngine.ts). */
export const UWS_PACKAGE = '@btc-vision/uwebsockets.js';
const uwsRoot = join(root, 'node_modules', UWS_PACKAGE);

const nodeArch = process.arch === 'arm64' ? 'arm64' : 'x64';

/** Where a Node `major` binary may be: $NODE<major>_BIN, then scripts/ci/node.sh's cache, then /opt/nodes. */
function candidates(major: number): string[] {
  const fromEnv = process.env[`NODE${major}_BIN`];
  const installed = (prefix: string) => join(prefix, 'node_modules', `node-linux-${nodeArch}`, 'bin', 'node');
  return [...(fromEnv ? [fromEnv] : []), installed(join(root, '.cache', 'node', String(major))), installed(join('/opt/nodes', String(major)))];
}

/** The running Node, then Node 22 and 24 (each once: a found binary that is the running one is not repeated). */
export function findRuntimes(): Runtime[] {
  const seen = new Set([realpathSync(process.execPath)]);
  const found: Runtime[] = [{ label: `running Node ${process.version}`, bin: process.execPath }];
  for (const major of [22, 24]) {
    const places = candidates(major);
    const bin = places.find((p) => existsSync(p));
    if (!bin) {
      found.push({ label: `Node ${major}`, bin: null, missing: `no binary at ${places.join(', ')} (scripts/ci/node.sh ${major} installs one)` });
      continue;
    }
    if (seen.has(realpathSync(bin))) continue;
    seen.add(realpathSync(bin));
    found.push({ label: `Node ${major} (${bin})`, bin });
  }
  return found;
}

// Run by the probed runtime: its version, ABI and glibc, and whether uWS's binary for that ABI loads.
const PROBE = `
const file = process.argv[1] + '/uws_' + process.platform + '_' + process.arch + '_' + process.versions.modules + '.node';
let uwsLoads = false, uwsWhy = '';
try { require(file); uwsLoads = true; } catch (e) { uwsWhy = String(e.message).split('\\n')[0]; }
console.log(JSON.stringify({ version: process.version, major: Number(process.versions.node.split('.')[0]), abi: process.versions.modules,
  glibc: process.report.getReport().header.glibcVersionRuntime || null, uwsLoads, uwsWhy }));
`;

export function probe(bin: string): Probe {
  return JSON.parse(execFileSync(bin, ['-e', PROBE, uwsRoot], { encoding: 'utf8' })) as Probe;
}

/** `@btc-vision/uwebsockets.js@<version>`, as the engine names its package. */
export function uwsLabel(): string {
  return `${UWS_PACKAGE}@${(JSON.parse(readFileSync(join(uwsRoot, 'package.json'), 'utf8')) as { version: string }).version}`;
}
