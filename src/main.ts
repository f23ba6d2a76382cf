import { startApp } from './app.js';
import { loadConfig } from './config.js';
import { createLogger } from './lib/log.js';

const log = createLogger();
const config = loadConfig();
const app = await startApp(config, log);

log.info('listening', {
  port: app.port,
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
    log.info('shutting down', { signal });
    app.close().then(
      () => process.exit(0),
      (err) => {
        log.error('shutdown failed', { error: String(err) });
        process.exit(1);
      },
    );
  });
}
