import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { listenError } from './nodeEngine.js';
import type { HttpEngine, Listener, RawHandler } from './types.js';

/** A uWebSockets.js build on npm: where its binaries sit and what it does with HTTP/1.0. */
export interface UwsBuild {
  /** The dependency name in package.json. */
  dependency: string;
  /** The binaries' folder, relative to the package root. */
  binaries: string;
  /** uWS before v20.4x waits forever on an HTTP/1.0 request; later ones answer 505 at once. */
  answersHttp10: boolean;
}

/**
 * In order of preference (docs/dependencies.md, "uWebSockets.js"): upstream v20.57 as republished for
 * Node 20-25 (glibc 2.38), then the v20.30 fork, the only build that loads on glibc 2.36, for Node 16-20.
 */
export const UWS_BUILDS: readonly UwsBuild[] = [
  { dependency: '@btc-vision/uwebsockets.js', binaries: '.', answersHttp10: true },
  { dependency: 'uWebSockets.js', binaries: 'binaries', answersHttp10: false },
];

/** The native module, as much of it as the server uses. */
interface UwsModule {
  App(): {
    any(pattern: string, handler: RawHandler): unknown;
    listen(host: string, port: number, options: number, cb: (token: unknown) => void): unknown;
    close?(): unknown;
  };
  us_listen_socket_close(token: unknown): void;
  us_socket_local_port(token: unknown): number;
}

/** uWS's LIBUS_LISTEN_EXCLUSIVE_PORT: no SO_REUSEPORT, so a port already held is refused, not shared. */
const LISTEN_EXCLUSIVE_PORT = 1;

export type UwsLoad = { ok: true; engine: HttpEngine } | { ok: false; why: string };

/**
 * Loads a build's binary for this Node ABI directly: never through the package's own entry point,
 * which in the v20.30 fork falls back to a JavaScript imitation that throws on the first request.
 */
export function loadUws(build: UwsBuild, reason: (label: string) => string): UwsLoad {
  const require = createRequire(import.meta.url);
  let root: string;
  let label: string;
  try {
    root = packageRoot(require.resolve(build.dependency));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
    label = `${pkg.name}@${pkg.version}`;
  } catch {
    return { ok: false, why: `${build.dependency} is not installed` };
  }
  const file = join(root, build.binaries, `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  let uws: UwsModule;
  try {
    uws = require(file) as UwsModule;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, why: `${label}: ${whyNotLoaded(message)}` };
  }
  return { ok: true, engine: uwsEngine(uws, label, reason(label)) };
}

function uwsEngine(uws: UwsModule, label: string, reason: string): HttpEngine {
  return {
    info: { engine: 'uws', package: label, reason, node: process.version },
    listen(host: string, port: number, handler: RawHandler): Promise<Listener> {
      const app = uws.App();
      app.any('/*', handler);
      return new Promise((resolve, reject) => {
        app.listen(host, port, LISTEN_EXCLUSIVE_PORT, (token) => {
          if (!token) return reject(listenError(host, port));
          resolve({
            port: uws.us_socket_local_port(token),
            stopAccepting: () => uws.us_listen_socket_close(token),
            closeConnections: () => app.close?.(),
          });
        });
      });
    },
  };
}

/** The folder holding the package.json of the package whose entry point is `main`. */
function packageRoot(main: string): string {
  for (let dir = dirname(main); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      readFileSync(join(dir, 'package.json'));
      return dir;
    } catch {
      // keep climbing
    }
  }
  throw new Error(`no package.json above ${main}`);
}

function whyNotLoaded(message: string): string {
  if (/Cannot find module/.test(message)) return `no binary for ${process.platform}-${process.arch} ABI ${process.versions.modules}`;
  const glibc = /GLIBC_([\d.]+)' not found/.exec(message);
  if (glibc) {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    return `its binary needs glibc ${glibc[1]}, this system has ${report?.header?.glibcVersionRuntime ?? 'an older one'}`;
  }
  return firstLine(message);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}
