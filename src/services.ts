import type { AuthCache } from './auth/cache.js';
import type { RateLimiter } from './auth/rateLimit.js';
import type { RevocationBus } from './auth/revocation.js';
import type { SemanticCache } from './cache/semanticCache.js';
import type { Config } from './config.js';
import type { Logger } from './lib/log.js';
import type { Metrics } from './metrics/metrics.js';
import type { ComputePool } from './pool/pool.js';
import type { Db } from './store/db.js';
import type { BackgroundTasks } from './lib/background.js';
import type { CircuitBreaker } from './lib/breaker.js';
import type { Commerce } from './domain/commerce/commerce.js';
import type { KnowledgeHub } from './knowledge/hub.js';
import type { CodeIntelHub } from './codeIntel/hub.js';
import type { KeyActivity } from './domain/identity/keyActivity.js';
import type { UsageWriter } from './domain/metering/usage.js';
import type { LlmRuntime } from './providers/llm/runtime.js';
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
  /** Billing and email providers, outbox (created by app.ts from config.commerce). */
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
