// The object every request handler and use case reaches. It names ports only (interfaces owned by the
// domain, the configuration, generic libs and the Db interface); app.ts builds it from the concrete
// classes, and the boundaries test keeps it that way.
import type { Config } from './config.js';
import type { Logger } from './lib/log.js';
import type { BackgroundTasks } from './lib/background.js';
import type { CircuitBreaker } from './lib/breaker.js';
import type { Db } from './store/db.js';
import type { ComputePool } from './domain/ports/compute.js';
import type { Metrics } from './domain/ports/metrics.js';
import type { SemanticCache } from './domain/ports/semanticCache.js';
import type { LlmRuntime } from './domain/ports/llm.js';
import type { AuthCache, KeyActivity, RateLimiter, RevocationBus } from './domain/identity/ports.js';
import type { Commerce } from './domain/commerce/ports.js';
import type { UsageWriter } from './domain/metering/ports.js';
import type { KnowledgeHub } from './domain/knowledge/ports.js';
import type { CodeIntelHub } from './domain/codeIntel/ports.js';
import type { WorkflowRuns } from './domain/workflows/ports.js';
import type { BatchQueue } from './domain/batchQueue/ports.js';

/** What a request handler may reach; built once in app.ts. */
export interface Services {
  config: Config;
  db: Db;
  pool: ComputePool;
  metrics: Metrics;
  cache: SemanticCache;
  authCache: AuthCache;
  revocations: RevocationBus;
  rateLimiter: RateLimiter;
  log: Logger;
  background: BackgroundTasks;
  breakers: CircuitBreaker[];
  /** Billing provider, settings, outbox (created by app.ts from config.commerce). */
  commerce: Commerce;
  /** Usage events by group commit: a call is answered once its event is durable. */
  usage: UsageWriter;
  /** Coalesced api_keys.last_used_at writes (at most one per key per minute). */
  keyActivity: KeyActivity;
  /** Knowledge Hub runtime: index thread, index sync, ingest queue (started by app.ts once HTTP listens). */
  knowledge: KnowledgeHub;
  /** Code intelligence: the thread holding every project's repository index (started by app.ts). */
  codeIntel: CodeIntelHub;
  /** Customers' LLM providers: local provider server, sealed keys, price table (docs/providers.md). */
  llm: LlmRuntime;
  /** Background executor of workflow runs (started by app.ts once HTTP listens; docs/workflows.md). */
  runs: WorkflowRuns<Services>;
  /** Background worker of queued batch compression jobs (started by app.ts once HTTP listens; docs/batch-queue.md). */
  batchQueue: BatchQueue<Services>;
  startedAt: number;
}
