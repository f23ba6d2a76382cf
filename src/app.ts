import { AuthCache } from './auth/cache.js';
import { memoryCache, redisCache } from './cache/semanticCache.js';
import { startRevocationBus } from './auth/revocation.js';
import type { Config } from './config.js';
import { bootstrapOwner } from './domain/bootstrap.js';
import { startHttpServer, type HttpServer } from './http/server.js';
import { createMcpHandler } from './mcp/bridge.js';
import { SessionStore } from './mcp/sessions.js';
import { BackgroundTasks } from './lib/background.js';
import { CircuitBreaker } from './lib/breaker.js';
import { createLogger, type Logger } from './lib/log.js';
import { Metrics } from './metrics/metrics.js';
import { ComputePool } from './pool/pool.js';
import { allRoutes } from './routes/index.js';
import type { Services } from './services.js';
import { openStore } from './store/index.js';
import { guardDb } from './store/guard.js';

export interface RunningApp {
  port: number;
  services: Services;
  /** The owner's first key, present only on the start that created the owner. */
  ownerKey: string | null;
  /** Graceful stop: no new connections, in-flight requests answered, pool drained, database closed. */
  close(): Promise<void>;
}

export async function startApp(config: Config, log: Logger = createLogger()): Promise<RunningApp> {
  const dbBreaker = new CircuitBreaker('database');
  const db = guardDb(await openStore(config), dbBreaker);
  const pool = new ComputePool({ threads: config.poolThreads, maxQueue: config.poolMaxQueue });
  const metrics = new Metrics();
  metrics.addGauges(() => {
    const s = pool.stats();
    const mem = process.memoryUsage();
    return { gc_pool_threads: s.threads, gc_pool_queue_size: s.queue_size, gc_process_resident_memory_bytes: mem.rss };
  });
  const authCache = new AuthCache(config.authCacheMs);
  const services: Services = {
    config,
    db,
    pool,
    metrics,
    cache: config.redisUrl ? await redisCache(config.redisUrl, log) : memoryCache(),
    authCache,
    revocations: await startRevocationBus(config.redisUrl, authCache, log),
    log,
    background: new BackgroundTasks(log),
    breakers: [dbBreaker],
    startedAt: Date.now(),
  };
  const mcpSessions = new SessionStore(services);
  const owner = config.bootstrapOwner ? await bootstrapOwner(db) : null;

  let http: HttpServer;
  try {
    http = await startHttpServer(allRoutes, services, {
      host: config.host,
      port: config.port,
      maxBodyBytes: config.maxBodyBytes,
      raw: { '/mcp': createMcpHandler(services, mcpSessions) },
    });
  } catch (err) {
    await pool.close();
    await db.close();
    throw err;
  }

  let closing: Promise<void> | null = null;
  return {
    port: http.port,
    services,
    ownerKey: owner?.key ?? null,
    close() {
      closing ??= (async () => {
        await http.close(config.shutdownGraceMs);
        await mcpSessions.closeAll();
        await pool.close();
        await services.background.drain();
        await services.revocations.close();
        await services.cache.close();
        await db.close();
      })();
      return closing;
    },
  };
}
