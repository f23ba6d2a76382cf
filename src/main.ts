import { startApp } from './app.js';
import { loadConfig } from './config.js';
import { createLogger } from './lib/log.js';
import { drainWait, startDraining } from './domain/health/draining.js';
import { DataDirLockedError } from './store/dataDirLock.js';

const log = createLogger();
// Node 20 reached end of life on 2026-04-30: it still runs (docs/runtime.md), with a warning.
if (Number(process.versions.node.split('.')[0]) < 22) {
  log.warn('Node.js past end of life', { node: process.version, advice: 'run Node.js 24 (the target) or 22' });
}
const config = loadConfig();
const app = await startApp(config, log).catch((err: unknown) => {
  // Another process owns the data folder: one line naming it, not a stack trace.
  if (!(err instanceof DataDirLockedError)) throw err;
  log.error('not started', { error: err.message });
  process.exit(1);
});

log.info('listening', {
  host: config.host,
  port: app.port,
  http_engine: app.engine.engine,
  http_engine_package: app.engine.package,
  http_engine_reason: app.engine.reason,
  node: process.version,
  database: config.databaseUrl ? 'postgres' : `pglite:${config.dataDir}`,
  pool_threads: config.poolThreads,
});
if (app.ownerKey) {
  // Printed once, on the start that created the owner; only its hash is stored.
  process.stdout.write(
    `\nOwner account created. Its API key (shown once, store it now):\n\n  ${app.ownerKey}\n\n` +
      `Try: curl -s http://localhost:${app.port}/v1/compress -H "Authorization: Bearer ${app.ownerKey}" ` +
      `-H 'content-type: application/json' -d '{"text":"...","fidelity":"balanced"}'\n\n`,
  );
}

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    // SIGTERM (an orchestrator, a rolling restart): readiness turns 503 and the instance keeps serving
    // while the balancer notices; SIGINT (Ctrl-C) stops at once. docs/deployment.md.
    startDraining(app.services);
    const drainMs = signal === 'SIGTERM' ? drainWait(app.services, config.shutdownDrainMs) : 0;
    log.info('shutting down', { signal, drain_ms: drainMs });
    new Promise((r) => setTimeout(r, drainMs)).then(() => app.close()).then(
      () => process.exit(0),
      (err) => {
        log.error('shutdown failed', { error: String(err) });
        process.exit(1);
      },
    );
  });
}
