// The service as main.ts runs it (startApp starts the Knowledge Hub, services.knowledge, and closes
// it before the pool and the database), plus a "ready" line once its indexes are loaded. Used by bench/kb/run.ts.
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/log.js';

const t0 = performance.now();
const app = await startApp(loadConfig(), createLogger(process.env.BENCH_LOGS === 'true'));
const kb = app.services.knowledge;
process.stdout.write(`kb-bench-listening port=${app.port} key=${app.ownerKey ?? 'none'} app_ms=${(performance.now() - t0).toFixed(0)}\n`);
void kb.ready.then(() => process.stdout.write(`kb-bench-ready ms=${(performance.now() - t0).toFixed(0)}\n`));

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await app.close();
      process.exit(0);
    })();
  });
}
