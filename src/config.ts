import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './lib/root.js';
import { DEFAULT_RATE_LIMITS } from './auth/rateLimit.js';
import type { Plan } from './auth/plans.js';
import { DEFAULT_BILLING_PRICING, type BillingPricing, type CommerceSettings } from './commerceSettings.js';
import { parseServerKey } from './providers/llm/secretBox.js';

export interface Config {
  /** HOST: the listening address; loopback (127.0.0.1) by default, so `npm start` is not reachable from the network. Containers and deployments set 0.0.0.0. */
  host: string;
  port: number;
  /** HTTP_ENGINE: `auto` (uWebSockets.js where a build loads and answers HTTP/1.0, else node:http), `uws` or `node` (docs/runtime.md). */
  httpEngine: 'auto' | 'uws' | 'node';
  /** postgres:// URL; when absent the embedded PGlite database in dataDir is used. */
  databaseUrl: string | null;
  /** PGlite folder; 'memory://' keeps it in memory (tests). */
  dataDir: string;
  /** PGlite runs in its own thread (PGLITE_THREAD, default true); false keeps it on the event loop. */
  pgliteThread: boolean;
  redisUrl: string | null;
  maxBodyBytes: number;
  /** Body limit of the routes that take a whole repository (structural code compression). */
  maxRepositoryBodyBytes: number;
  poolThreads: number;
  /** Nice value of the compute threads (POOL_THREAD_NICE, 0-19): above the event loop's, so I/O and health checks get a core first. */
  poolThreadNice: number;
  poolMaxQueue: number;
  /** Time budget of one compute task (POOL_TASK_DEADLINE_MS); past it the worker is replaced and the call times out. */
  poolTaskDeadlineMs: number;
  /** Upper bound on how long a cached authentication may outlive a revocation elsewhere. */
  authCacheMs: number;
  shutdownGraceMs: number;
  /**
   * SHUTDOWN_DRAIN_MS: on SIGTERM, how long readiness answers 503 while the instance still serves, so a
   * load balancer's health checks take it out of rotation first (HAProxy: inter x fall, deploy/haproxy.cfg).
   * Skipped when no readiness probe came within that time (nothing watches). Default 5000.
   */
  shutdownDrainMs: number;
  bootstrapOwner: boolean;
  logRequests: boolean;
  /** Identity-provider JWTs: JWKS by URL or file, with issuer and audience checks. Unset disables JWT auth. */
  jwksUrl: string | null;
  jwksFile: string | null;
  /** One fetch of JWKS_URL (JWKS_TIMEOUT_MS, default 5 s). */
  jwksTimeoutMs?: number;
  jwtIssuer: string | null;
  jwtAudience: string | null;
  /** Requests per minute per key, by plan (RATE_LIMIT_FREE, RATE_LIMIT_PRO, RATE_LIMIT_TEAM, RATE_LIMIT_ENTERPRISE). */
  rateLimits: Record<Plan, number>;
  /** MCP sessions: at most this many per instance (MCP_MAX_SESSIONS) and per key (MCP_SESSIONS_PER_KEY), closed after MCP_SESSION_IDLE_MS unused. */
  mcpSessions: { maxSessions: number; maxPerKey: number; idleMs: number };
  /** Request-body bytes held in memory at once across requests (MAX_INFLIGHT_BODY_BYTES); past it 503. */
  maxInflightBodyBytes: number;
  /** MCP POST answers as SSE streams instead of single JSON bodies (the GET stream is SSE either way). */
  mcpSseResponses: boolean;
  /** Public base URL used in discovery documents (agent card, OAuth metadata) and signed upload URLs. */
  publicUrl: string | null;
  /**
   * Without publicUrl: the request hosts (Host / X-Forwarded-Host, `host[:port]`, lower case) that may
   * become the public base URL (PUBLIC_HOSTS, comma-separated). Loopback hosts are always accepted.
   */
  publicHosts: string[];
  /** Browser origins allowed to call /mcp besides the public URL's (MCP_ALLOWED_ORIGINS, comma-separated; `*` = any). */
  mcpAllowedOrigins: string[];
  /** X-Internal-Token expected by /internal/* (INTERNAL_TOKEN); null closes those routes. */
  internalToken: string | null;
  /** Billing and email providers, outbox, meter sync, payment secrets, overage pricing. */
  commerce: CommerceSettings;
  /** Customers' LLM providers (docs/providers.md). */
  llm: LlmSettings;
  /** Workflow runs (docs/workflows.md). */
  runs: RunSettings;
  /** Queued batch compression: documents leased like runs (BATCH_QUEUE_*; docs/batch-queue.md). */
  batchQueue: RunSettings;
  /** A2A federation (docs/federation.md). */
  federation: FederationSettings;
  /** proxy_mcp_server (docs/mcp-proxy.md). */
  mcpProxy: McpProxySettings;
  /** Web lookup, web search and connector feeds (docs/web-and-connectors.md). */
  web: WebSettings;
  version: string;
}

export interface LlmSettings {
  /** AES-256-GCM key sealing customers' provider keys (PROVIDER_KEY_SECRET); null refuses to store keys. */
  keySecret: Buffer | null;
  /** Start the local OpenAI-compatible provider in-process (LLM_LOCAL_SERVER, default on). */
  localServer: boolean;
  localPort: number;
  /** host[:port] a provider base_url may name although it is not a public address (LLM_ALLOWED_HOSTS). */
  allowedHosts: string[];
  timeoutMs: number;
  maxRetries: number;
  backoffBaseMs: number;
  /** Extra dated price entries (LLM_PRICES_FILE, JSON). */
  pricesFile: string | null;
}

export interface FederationSettings {
  /** host:port a peer base URL or webhook URL may name although not public; http accepted there (FEDERATION_ALLOWED_HOSTS). */
  allowedHosts: string[];
  /** How often pending and claimed A2A tasks past their deadline are expired (FEDERATION_SWEEP_MS). */
  sweepMs: number;
  /** One request to a peer or webhook receiver, connection included (FEDERATION_TIMEOUT_MS, default 10 s). */
  timeoutMs?: number;
}

export interface WebSettings {
  /**
   * host:port that may be fetched although not a public address, http accepted there (WEB_ALLOWED_HOSTS).
   * Empty by default: loopback and private ranges are refused. Tests allow their local servers here.
   */
  allowedHosts: string[];
  /** Largest page or feed fetched, in bytes (WEB_MAX_BYTES). */
  maxBytes: number;
  /** Time budget of one fetch, redirects included (WEB_TIMEOUT_MS). */
  timeoutMs: number;
  /** Base URL of the Brave-Search-format API gc_web_search calls (WEB_SEARCH_BASE_URL). */
  searchBaseUrl: string;
  /** Directory local-folder connector feeds are confined to (CONNECTOR_FOLDER_ROOT); null disables the folder type. */
  folderRoot: string | null;
  /** How often the scheduler looks for feeds due a sync (CONNECTOR_POLL_MS). */
  pollMs: number;
  /** Shortest schedule interval a feed may ask for, in seconds (CONNECTOR_MIN_INTERVAL_S). */
  minIntervalSeconds: number;
}

export interface McpProxySettings {
  /** host:port an upstream MCP URL may name although not public; http accepted there (MCP_PROXY_ALLOWED_HOSTS). */
  allowedHosts: string[];
  /**
   * Stdio MCP servers the operator allows, by name (MCP_PROXY_STDIO_SERVERS, JSON
   * {"name": {"command": "...", "args": [...]}}): callers name one, never a command line.
   */
  stdioServers: Record<string, { command: string; args: string[] }>;
  /** The environment a stdio server starts with: PATH and HOME only, none of the service's secrets. */
  childEnv: Record<string, string>;
  /** One upstream call's time limit, connection included (MCP_PROXY_TIMEOUT_MS). */
  timeoutMs: number;
  /** Largest upstream response body read (MCP_PROXY_MAX_BYTES). */
  maxBytes: number;
}

export interface RunSettings {
  /** How long a run's lease lasts without a heartbeat (RUN_LEASE_MS); a dead process's runs are claimed after it. */
  leaseMs: number;
  /** How often an idle executor looks for queued or abandoned runs (RUN_POLL_MS). */
  pollMs: number;
  /** Runs executed at once per process (RUN_CONCURRENCY). */
  concurrency: number;
  /** Claims of one run before it fails as interrupted (RUN_MAX_ATTEMPTS). */
  maxAttempts: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got '${raw}'`);
  return value;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(raw)})`);
  return raw as T;
}

function text(env: NodeJS.ProcessEnv, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

/** Billing amounts keep their historical leniency: a value that is not a non-negative integer falls back to the default. */
function lenientInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
}

function list(env: NodeJS.ProcessEnv, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/** MCP_PROXY_STDIO_SERVERS: a JSON object of name → {command, args?}; anything else fails at start, not at the first call. */
function stdioServers(raw: string | undefined): McpProxySettings['stdioServers'] {
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('MCP_PROXY_STDIO_SERVERS must be JSON: {"name": {"command": "...", "args": ["..."]}}');
  }
  const out: McpProxySettings['stdioServers'] = {};
  for (const [name, v] of Object.entries(parsed && typeof parsed === 'object' ? parsed : {})) {
    const entry = v as { command?: unknown; args?: unknown };
    if (typeof entry?.command !== 'string' || (entry.args !== undefined && !(Array.isArray(entry.args) && entry.args.every((a) => typeof a === 'string')))) {
      throw new Error(`MCP_PROXY_STDIO_SERVERS.${name} needs a string command and an optional array of string args`);
    }
    out[name] = { command: entry.command, args: (entry.args as string[] | undefined) ?? [] };
  }
  return out;
}

function billingPricing(env: NodeJS.ProcessEnv): BillingPricing {
  const d = DEFAULT_BILLING_PRICING;
  return {
    freeIncludedUnits: lenientInt(env, 'BILLING_FREE_INCLUDED_UNITS', d.freeIncludedUnits),
    pro: {
      included_units: lenientInt(env, 'BILLING_PRO_INCLUDED_UNITS', d.pro.included_units),
      unit_amount_cents: lenientInt(env, 'BILLING_PRO_UNIT_CENTS', d.pro.unit_amount_cents),
      cap_cents: lenientInt(env, 'BILLING_PRO_CAP_CENTS', d.pro.cap_cents),
    },
    team: {
      included_units: lenientInt(env, 'BILLING_TEAM_INCLUDED_UNITS', d.team.included_units),
      unit_amount_cents: lenientInt(env, 'BILLING_TEAM_UNIT_CENTS', d.team.unit_amount_cents),
      cap_cents: lenientInt(env, 'BILLING_TEAM_CAP_CENTS', d.team.cap_cents),
    },
  };
}

/** RESPONSE_CHECK=1 (set for the test suite): every JSON success body is checked against its route's response schema. */
export function responseCheckEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.RESPONSE_CHECK === '1';
}

/** The `gc` command line's server (GC_URL) and key (GC_KEY); flags override them (docs/decisions.md). */
export function cliSettings(env: NodeJS.ProcessEnv = process.env): { url: string | null; key: string | null } {
  return { url: text(env, 'GC_URL') ?? null, key: text(env, 'GC_KEY') ?? null };
}

/** The commerce area's settings (docs/commerce.md); tests override parts through AppOptions.commerce. */
export function commerceSettings(env: NodeJS.ProcessEnv): CommerceSettings {
  const secret = text(env, 'STRIPE_SECRET_KEY');
  const base = text(env, 'STRIPE_API_BASE') ?? (secret ? 'https://api.stripe.com' : null);
  const publicUrl = (text(env, 'PUBLIC_URL') ?? 'http://localhost:8080').replace(/\/$/, '');
  return {
    stripeApiBase: base,
    stripeSecretKey: secret,
    stripeWebhookSecret: text(env, 'STRIPE_WEBHOOK_SECRET'),
    stripePricePro: text(env, 'STRIPE_PRICE_PRO') ?? 'price_local_pro',
    stripePriceProMetered: text(env, 'STRIPE_PRICE_PRO_METERED'),
    stripePriceTeam: text(env, 'STRIPE_PRICE_TEAM') ?? 'price_local_team',
    stripeMeterId: text(env, 'STRIPE_METER_ID') ?? 'mtr_local_compressions',
    stripeMeterEventName: text(env, 'STRIPE_METER_EVENT_NAME') ?? 'gc_compressions',
    localStripePort: int(env, 'LOCAL_STRIPE_PORT', 0),
    checkoutSuccessUrl: text(env, 'BILLING_SUCCESS_URL') ?? `${publicUrl}/billing/success?session_id={CHECKOUT_SESSION_ID}`,
    checkoutCancelUrl: text(env, 'BILLING_CANCEL_URL') ?? `${publicUrl}/billing/cancel`,
    portalReturnUrl: text(env, 'BILLING_PORTAL_RETURN_URL') ?? `${publicUrl}/billing`,
    smtpUrl: text(env, 'SMTP_URL'),
    mailFrom: text(env, 'MAIL_FROM') ?? 'Semantic Compression <no-reply@localhost>',
    salesInbox: text(env, 'SALES_INBOX') ?? 'sales@localhost',
    identityWebhookSecret: text(env, 'IDENTITY_WEBHOOK_SECRET'),
    outboxPollMs: int(env, 'OUTBOX_POLL_MS', 1000),
    outboxBackoffBaseMs: int(env, 'OUTBOX_BACKOFF_BASE_MS', 2000),
    outboxBackoffMaxMs: int(env, 'OUTBOX_BACKOFF_MAX_MS', 15 * 60_000),
    outboxMaxAttempts: int(env, 'OUTBOX_MAX_ATTEMPTS', 20),
    meterSyncMs: int(env, 'METER_SYNC_MS', 60_000),
    breakerThreshold: int(env, 'PROVIDER_BREAKER_THRESHOLD', 5),
    breakerCoolDownMs: int(env, 'PROVIDER_BREAKER_COOLDOWN_MS', 30_000),
    paymentSecrets: {
      x402: text(env, 'PAYMENT_SECRET_X402'),
      stripe_acp: text(env, 'PAYMENT_SECRET_STRIPE_ACP'),
      skyfire: text(env, 'PAYMENT_SECRET_SKYFIRE'),
    },
    pricing: billingPricing(env),
  };
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const threads = int(env, 'POOL_THREADS', availableParallelism());
  return {
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 8080),
    httpEngine: oneOf(env, 'HTTP_ENGINE', ['auto', 'uws', 'node'] as const, 'auto'),
    databaseUrl: env.DATABASE_URL || null,
    dataDir: env.DATA_DIR || join(process.cwd(), 'data'),
    pgliteThread: env.PGLITE_THREAD !== 'false',
    redisUrl: env.REDIS_URL || null,
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 8 * 1024 * 1024),
    maxRepositoryBodyBytes: int(env, 'MAX_REPOSITORY_BODY_BYTES', 64 * 1024 * 1024),
    poolThreads: Math.max(1, threads),
    poolThreadNice: Math.min(19, Math.max(0, int(env, 'POOL_THREAD_NICE', 10))),
    poolMaxQueue: int(env, 'POOL_MAX_QUEUE', Math.max(1, threads) * 64),
    // Fits the largest accepted body: a 64 MiB repository takes well under a minute per task.
    poolTaskDeadlineMs: Math.max(1, int(env, 'POOL_TASK_DEADLINE_MS', 120_000)),
    authCacheMs: Math.min(int(env, 'AUTH_CACHE_MS', 5000), 5000),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10_000),
    shutdownDrainMs: Math.max(0, int(env, 'SHUTDOWN_DRAIN_MS', 5000)),
    bootstrapOwner: env.BOOTSTRAP_OWNER !== 'false',
    logRequests: env.LOG_REQUESTS === 'true',
    jwksUrl: env.JWKS_URL || null,
    jwksFile: env.JWKS_FILE || null,
    jwksTimeoutMs: Math.max(100, int(env, 'JWKS_TIMEOUT_MS', 5000)),
    jwtIssuer: env.JWT_ISSUER || null,
    jwtAudience: env.JWT_AUDIENCE || null,
    publicUrl: env.PUBLIC_URL || null,
    publicHosts: list(env, 'PUBLIC_HOSTS'),
    mcpAllowedOrigins: list(env, 'MCP_ALLOWED_ORIGINS').map((o) => o.toLowerCase().replace(/\/+$/, '')),
    internalToken: env.INTERNAL_TOKEN || null,
    commerce: commerceSettings(env),
    llm: {
      keySecret: env.PROVIDER_KEY_SECRET ? parseServerKey(env.PROVIDER_KEY_SECRET) : null,
      localServer: env.LLM_LOCAL_SERVER !== 'off' && env.LLM_LOCAL_SERVER !== 'false',
      localPort: int(env, 'LLM_LOCAL_PORT', 0),
      allowedHosts: list(env, 'LLM_ALLOWED_HOSTS'),
      timeoutMs: Math.max(1, int(env, 'LLM_TIMEOUT_MS', 60_000)),
      maxRetries: int(env, 'LLM_MAX_RETRIES', 3),
      backoffBaseMs: int(env, 'LLM_BACKOFF_BASE_MS', 500),
      pricesFile: text(env, 'LLM_PRICES_FILE'),
    },
    federation: {
      allowedHosts: list(env, 'FEDERATION_ALLOWED_HOSTS'),
      sweepMs: Math.max(100, int(env, 'FEDERATION_SWEEP_MS', 5000)),
      timeoutMs: Math.max(100, int(env, 'FEDERATION_TIMEOUT_MS', 10_000)),
    },
    web: {
      allowedHosts: list(env, 'WEB_ALLOWED_HOSTS'),
      maxBytes: Math.max(1024, int(env, 'WEB_MAX_BYTES', 5 * 1024 * 1024)),
      timeoutMs: Math.max(100, int(env, 'WEB_TIMEOUT_MS', 10_000)),
      searchBaseUrl: (text(env, 'WEB_SEARCH_BASE_URL') ?? 'https://api.search.brave.com').replace(/\/+$/, ''),
      folderRoot: text(env, 'CONNECTOR_FOLDER_ROOT'),
      pollMs: Math.max(50, int(env, 'CONNECTOR_POLL_MS', 5000)),
      minIntervalSeconds: Math.max(1, int(env, 'CONNECTOR_MIN_INTERVAL_S', 300)),
    },
    mcpProxy: {
      allowedHosts: list(env, 'MCP_PROXY_ALLOWED_HOSTS'),
      stdioServers: stdioServers(env.MCP_PROXY_STDIO_SERVERS),
      childEnv: Object.fromEntries(['PATH', 'HOME'].filter((k) => env[k]).map((k) => [k, env[k]!])),
      timeoutMs: Math.max(100, int(env, 'MCP_PROXY_TIMEOUT_MS', 30_000)),
      maxBytes: Math.max(1024, int(env, 'MCP_PROXY_MAX_BYTES', 8 * 1024 * 1024)),
    },
    runs: {
      leaseMs: Math.max(500, int(env, 'RUN_LEASE_MS', 30_000)),
      pollMs: Math.max(50, int(env, 'RUN_POLL_MS', 1000)),
      concurrency: Math.max(1, int(env, 'RUN_CONCURRENCY', 2)),
      maxAttempts: Math.max(1, int(env, 'RUN_MAX_ATTEMPTS', 3)),
    },
    batchQueue: {
      leaseMs: Math.max(500, int(env, 'BATCH_QUEUE_LEASE_MS', 30_000)),
      pollMs: Math.max(50, int(env, 'BATCH_QUEUE_POLL_MS', 1000)),
      concurrency: Math.max(1, int(env, 'BATCH_QUEUE_CONCURRENCY', 4)),
      maxAttempts: Math.max(1, int(env, 'BATCH_QUEUE_MAX_ATTEMPTS', 3)),
    },
    // SSE by default: progress, log messages and list_changed reach the client while a call runs (a JSON body cannot carry them).
    mcpSseResponses: env.MCP_SSE_RESPONSES !== 'false',
    mcpSessions: {
      maxSessions: Math.max(1, int(env, 'MCP_MAX_SESSIONS', 5000)),
      maxPerKey: Math.max(1, int(env, 'MCP_SESSIONS_PER_KEY', 32)),
      idleMs: Math.max(1000, int(env, 'MCP_SESSION_IDLE_MS', 30 * 60_000)),
    },
    maxInflightBodyBytes: Math.max(1, int(env, 'MAX_INFLIGHT_BODY_BYTES', 256 * 1024 * 1024)),
    rateLimits: {
      free: int(env, 'RATE_LIMIT_FREE', DEFAULT_RATE_LIMITS.free),
      pro: int(env, 'RATE_LIMIT_PRO', DEFAULT_RATE_LIMITS.pro),
      team: int(env, 'RATE_LIMIT_TEAM', DEFAULT_RATE_LIMITS.team),
      enterprise: int(env, 'RATE_LIMIT_ENTERPRISE', DEFAULT_RATE_LIMITS.enterprise),
    },
    version: packageVersion(),
    ...overrides,
  };
}
