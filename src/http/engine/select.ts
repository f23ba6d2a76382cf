import { nodeEngine } from './nodeEngine.js';
import type { HttpEngine } from './types.js';
import { loadUws, UWS_BUILDS } from './uwsEngine.js';

export type EngineChoice = 'auto' | 'uws' | 'node';

let chosen: { choice: EngineChoice; engine: HttpEngine } | null = null;

/**
 * The HTTP engine of this process (HTTP_ENGINE): `auto` serves on uWebSockets.js when a build whose
 * binary loads on this Node ABI and libc also answers HTTP/1.0 at once, and on node:http otherwise;
 * `uws` insists on uWS (any build that loads, else start-up fails); `node` is node:http. Chosen once.
 */
export function httpEngine(choice: EngineChoice): HttpEngine {
  if (chosen?.choice === choice) return chosen.engine;
  const engine = select(choice);
  chosen = { choice, engine };
  return engine;
}

function select(choice: EngineChoice): HttpEngine {
  if (choice === 'node') return nodeEngine('HTTP_ENGINE=node');
  const refused: string[] = [];
  for (const build of UWS_BUILDS) {
    if (choice === 'auto' && !build.answersHttp10) {
      // Loaded only to say why it was passed over.
      const load = loadUws(build, () => '');
      refused.push(load.ok ? `${load.engine.info.package} loads but leaves HTTP/1.0 requests unanswered (HAProxy's default health check); HTTP_ENGINE=uws uses it anyway` : load.why);
      continue;
    }
    const load = loadUws(build, (label) =>
      choice === 'uws' ? `HTTP_ENGINE=uws: ${label} loads${build.answersHttp10 ? '' : '; HTTP/1.0 requests get no answer on this build'}` : `${label} has a binary for Node ${process.version} (ABI ${process.versions.modules}) on this libc`,
    );
    if (load.ok) return load.engine;
    refused.push(load.why);
  }
  if (choice === 'uws') throw new Error(`HTTP_ENGINE=uws but no uWebSockets.js build loads: ${refused.join('; ')}`);
  return nodeEngine(`no usable uWebSockets.js build: ${refused.join('; ')}`);
}
