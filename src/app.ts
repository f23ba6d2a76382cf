import { join } from 'node:path';
import { AuthCache } from './auth/cache.js';
import { memoryCache, redisCache, type SemanticCache } from './cache/semanticCache.js';
import { memoryRateLimiter, redisRateLimiter } from './auth/rateLimit.js';
import { startRevocationBus } from './auth/revocation.js';
import { connectRedis } from './lib/redis.js';
import type { Config } from './config.js';
import { bootstrapOwner } from './domain/identity/bootstrap.js';
import { startMeterSync } from './domain/commerce/billing.js';
import { createCommerce, type CommerceRuntime, type CommerceSettings } from './domain/commerce/commerce.js';
import { KnowledgeHub } from './knowledge/hub.js';
import { LlmRuntime } from './providers/llm/runtime.js';
import { RunExecutor } from './domain/workflows/executor.js';
import { startExperimentRunner } from './domain/prompts/runner.js';
import { BatchQueueWorker } from './domain/batchQueue/worker.js';
import { startTaskSweeper } from './domain/federation/tasks.js';
import { setFederationSettings } from './domain/federation/urls.js';
import { startWebhookSealing } from './domain/federation/webhookSecrets.js';
import { startPreviewRedaction } from './domain/metering/previewRedaction.js';
import { startConnectorScheduler } from './domain/connectors/scheduler.js';
import { mcpNodeTools } from './mcp/nodeTools.js';
import { CodeIntelHub } from './codeIntel/hub.js';
import { startHttpServer } from './http/server.js';
import type { EngineInfo } from './http/engine/types.js';
import { createMcpHandler } from './mcp/bridge.js';
import { SessionStore } from './mcp/sessions.js';
import { BackgroundTasks } from './lib/background.js';
import { CircuitBreaker } from './lib/breaker.js';
import { createLogger, type Logger } from './lib/log.js';
import { Metrics } from './metrics/metrics.js';
import { ComputePool } from './pool/pool.js';
import { allRoutes } from './routes/index.js';
import { startA2AProtocol } from './a2a/protocol/service.js';
import type { Services } from './services.js';
import { KeyActivity } from './domain/identity/keyActivity.js';
import { GroupCommitUsageWriter, usageReadsSeeAcknowledged, type UsageWriter } from './domain/metering/usage.js';
import { JournaledUsageWriter } from './domain/metering/usageJournal.js';
import { openStore } from './store/index.js';
import { guardDb } from './store/guard.js';
import { acquireDataDirLockFor } from './store/dataDirLock.js';

/**
 * The Services object with the concrete types app.ts built them from, for whoever holds the running app
 * (tests, benches: a hub's idle(), the pool's run()). Handlers and use cases see only the ports (services.ts).
 */
export interface AppServices extends Services {
  pool: ComputePool;
  cache: SemanticCache;
  commerce: CommerceRuntime;
  knowledge: KnowledgeHub;
  codeIntel: CodeIntelHub;
  llm: LlmRuntime;
}

export interface RunningApp {
  port: number;
  /** The HTTP engine serving (uWebSockets.js or node:http) and why. */
  engine: EngineInfo;
  services: AppServices;
  /** The owner's first key, present only on the start that created the owner. */
  ownerKey: string | null;
  /** Graceful stop: no new connections, in-flight requests answered, pool drained, database closed. */
  close(): Promise<void>;
}

export interface AppOptions {
  /** Commerce provider settings over config.commerce (tests point them at local sinks). */
  commerce?: Partial<CommerceSettings>;
}

export async function startApp(config: Config, log: Logger = createLogger(), options: AppOptions = {}): Promise<RunningApp> {
  // Everything opened so far, closed in reverse if a later step fails (or on shutdown).
  const opened: (() => Promise<void>)[] = [];
  const unwind = async () => {
    for (const close of opened.splice(0).reverse()) await close().catch(() => undefined);
  };
  try {
    // One owner per on-disk PGlite folder (src/store/dataDirLock.ts): taken before the database opens,
    // released last, after it has closed.
    const dataDirLock = await acquireDataDirLockFor(config, 'server');
    if (dataDirLock) opened.push(async () => dataDirLock.release());
    const dbBreaker = new CircuitBreaker('database');
    // The pool's threads load their modules while the database opens (both take most of a start).
    const pool = new ComputePool({ threads: config.poolThreads, maxQueue: config.poolMaxQueue, taskDeadlineMs: config.poolTaskDeadlineMs, threadNice: config.poolThreadNice });
    const warm = pool.warmUp(config.poolThreads);
    warm.catch(() => undefined); // awaited below; a failure while the database opens is not unhandled
    let db: ReturnType<typeof guardDb>;
    try {
      db = guardDb(await openStore(config, log), dbBreaker);
    } catch (err) {
      await pool.close({ force: true }).catch(() => undefined);
      throw err;
    }
    opened.push(() => db.close());
    // Reached after the HTTP server's grace period: whatever still runs is stopped, not awaited.
    opened.push(() => pool.close({ force: true }));
    const background = new BackgroundTasks(log);
    // An on-disk embedded database gets the usage journal (calls answered on a file append, events
    // written in batches); PostgreSQL and in-memory PGlite answer once the event has committed.
    const usage: UsageWriter = config.databaseUrl || config.dataDir === 'memory://'
      ? new GroupCommitUsageWriter(db, log, background)
      : await JournaledUsageWriter.open(db, join(config.dataDir, 'usage-journal'), log);
    opened.push(() => usage.close());
    db = usageReadsSeeAcknowledged(db, usage);
    await warm;
    const cache = config.redisUrl ? await redisCache(config.redisUrl, log) : memoryCache();
    opened.push(() => cache.close());
    const authCache = new AuthCache(config.authCacheMs);
    const revocations = await startRevocationBus(config.redisUrl, authCache, log);
    opened.push(() => revocations.close());
    let rateLimiter = memoryRateLimiter(config.rateLimits);
    if (config.redisUrl) {
      const redis = await connectRedis(config.redisUrl);
      // Without a listener, ioredis reports every failed reconnect as an unhandled error event.
      redis.on('error', (err: Error) => log.warn('redis rate-limit error', { error: err.message }));
      opened.push(async () => redis.disconnect());
      rateLimiter = redisRateLimiter(redis, config.rateLimits);
    }
    const metrics = new Metrics();
    metrics.addGauge('gc_pool_threads', 'Worker threads in the compute pool.', () => pool.stats().threads);
    metrics.addGauge('gc_pool_queue_size', 'Compute tasks waiting for a pool thread.', () => pool.stats().queue_size);
    metrics.addGauge('gc_process_resident_memory_bytes', 'Resident memory of this process (also process_resident_memory_bytes).', () => process.memoryUsage().rss);
    opened.push(() => background.drain());
    const breakers: CircuitBreaker[] = [dbBreaker];
    // Webhook signing secrets are sealed at rest; plain ones an earlier version stored are sealed now,
    // before the outbox sender (below) signs deliveries with them.
    await startWebhookSealing(db, config.llm.keySecret, log);
    // Usage previews stored before they were redacted are redacted once, in the background; stopped at shutdown.
    const previewRedaction = startPreviewRedaction(db, log);
    background.add('usage preview redaction', previewRedaction.done);
    opened.push(async () => previewRedaction.stop());
    // Provider clients, their breakers (added to `breakers`, shown in diagnostics) and the outbox sender.
    const commerce = await createCommerce({ db, log, breakers }, { ...config.commerce, ...options.commerce });
    opened.push(() => commerce.close());
    // Built now, started once HTTP listens (below).
    const knowledge = new KnowledgeHub({ db, pool, log }, config.dataDir);
    // Enabled now; its thread starts on first use and loads project indexes lazily from the database.
    const codeIntel = new CodeIntelHub({ db, log });
    codeIntel.start();
    opened.push(() => codeIntel.close());
    const llm = new LlmRuntime(config.llm);
    await llm.start();
    opened.push(() => llm.close());
    const runs = new RunExecutor(config.runs, log);
    const batchQueue = new BatchQueueWorker(config.batchQueue, log);
    const services: AppServices = {
      config, db, pool, metrics, cache, authCache, revocations, rateLimiter, log, background, breakers, commerce, knowledge, codeIntel,
      keyActivity: new KeyActivity(db, background, log),
      usage,
      llm, runs, batchQueue,
      startedAt: Date.now(),
    };
    const meterSync = startMeterSync(services);
    opened.push(async () => meterSync.stop());
    const mcpSessions = new SessionStore(services, config.mcpSessions);
    metrics.addGauge('gc_mcp_sessions', 'MCP sessions this instance holds in memory (limit: MCP_MAX_SESSIONS).', () => mcpSessions.size);
    opened.push(() => mcpSessions.closeAll());
    const owner = config.bootstrapOwner ? await bootstrapOwner(db) : null;
    // A2A protocol tasks a previous process left open are resolved before we listen; closed after HTTP drains.
    const a2a = await startA2AProtocol(services);
    opened.push(() => a2a.close());
    const http = await startHttpServer(allRoutes, services, {
      host: config.host,
      port: config.port,
      maxBodyBytes: config.maxBodyBytes,
      maxRepositoryBodyBytes: config.maxRepositoryBodyBytes,
      maxInflightBodyBytes: config.maxInflightBodyBytes,
      raw: { '/mcp': createMcpHandler(services, mcpSessions) },
    });
    // MCP requests (answered outside the router's in-flight count) finish first, then the router drains.
    opened.push(async () => {
      await mcpSessions.settled(config.shutdownGraceMs);
      await http.close(config.shutdownGraceMs);
    });
    dataDirLock?.setPort(http.port);
    metrics.addGauge('gc_http_request_body_bytes', 'Request-body bytes held in memory across requests (limit: MAX_INFLIGHT_BODY_BYTES).', () => http.bodyBytesInUse());
    metrics.setInfo('gc_http_engine_info', 'The HTTP engine serving this process, the Node.js version and why that engine was chosen.', {
      engine: http.engine.engine,
      package: http.engine.package ?? '',
      node: http.engine.node,
      reason: http.engine.reason,
    });
    // Index loading can take a while without snapshots, so it starts once we are listening; it closes
    // after the HTTP server has drained (its entry goes just before the server's in the unwind order),
    // before the pool and the database.
    knowledge.start();
    opened.splice(opened.length - 1, 0, () => knowledge.close());
    // Runs resume (or fail with a reason) once we listen; they stop before the hub, the pool and the database.
    runs.start(services, mcpNodeTools(services));
    opened.splice(opened.length - 1, 0, () => runs.close());
    // Experiment runs (docs/prompt-templates.md) resume the same way and stop at the same point.
    opened.splice(opened.length - 1, 0, startExperimentRunner(services));
    // Queued batch jobs resume the same way (docs/batch-queue.md).
    batchQueue.start(services);
    opened.splice(opened.length - 1, 0, () => batchQueue.close());
    // Delegated A2A tasks past their deadline expire (docs/federation.md).
    setFederationSettings(db, config.federation);
    opened.splice(opened.length - 1, 0, startTaskSweeper(services));
    // Scheduled connector feed syncs (docs/web-and-connectors.md); stopped before the hub and the pool.
    const connectors = startConnectorScheduler(services);
    opened.splice(opened.length - 1, 0, () => connectors.close());

    let closing: Promise<void> | null = null;
    return {
      port: http.port,
      engine: http.engine,
      services,
      ownerKey: owner?.key ?? null,
      close() {
        closing ??= unwind();
        return closing;
      },
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}
