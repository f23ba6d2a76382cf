// The service as main.ts runs it, plus the Knowledge Hub wiring the lead adds to app.ts
// (startKnowledgeHub after startApp; its close() before app.close()). Used by bench/kb/run.ts.
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startKnowledgeHub } from '../../src/kb/hub.js';
import { createLogger } from '../../src/lib/log.js';

const t0 = performance.now();
const app = await startApp(loadConfig(), createLogger(process.env.BENCH_LOGS === 'true'));
const kb = await startKnowledgeHub(app.services);
process.stdout.write(`kb-bench-listening port=${app.port} key=${app.ownerKey ?? 'none'} app_ms=${(performance.now() - t0).toFixed(0)}\n`);
void kb.ready.then(() => process.stdout.write(`kb-bench-ready ms=${(performance.now() - t0).toFixed(0)}\n`));

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await kb.close();
      await app.close();
      process.exit(0);
    })();
  });
}
