import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import postgres from 'postgres';
import { startApp, type AppOptions, type RunningApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/lib/log.js';
import { startMemoryDatabasesFrom } from '../../src/store/pglite.js';
import { databaseUrl } from './globalSetup.js';

export interface TestServer {
  app: RunningApp;
  url: string;
  ownerKey: string;
  /** JSON request over a real socket; `key: null` sends no Authorization header. */
  request(method: string, path: string, options?: { body?: unknown; rawBody?: string | Uint8Array; key?: string | null; headers?: Record<string, string> }): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** Which database path this run exercises: PostgreSQL when DATABASE_URL is set, PGlite otherwise. */
export const DB_KIND = process.env.DATABASE_URL ? 'postgres' : 'pglite';

// The migrated database test/helpers/globalSetup.ts made for this run; TEST_DB_TEMPLATE=false starts
// every database empty instead (each server then runs the migrations itself, as a first start does).
const template = process.env.TEST_DB_TEMPLATE === 'false' ? null : inject('databaseTemplate');
let pgliteLoaded = false;

/**
 * A fresh database per server: a new PostgreSQL database (dropped on close) created from the run's
 * migrated template, or an in-memory PGlite started from the run's migrated dump.
 */
export async function freshDatabase(): Promise<{ databaseUrl: string | null; dataDir: string; drop(): Promise<void> }> {
  const admin = process.env.DATABASE_URL;
  if (!admin) {
    if (!pgliteLoaded && template?.pgliteDump) startMemoryDatabasesFrom(new Blob([readFileSync(template.pgliteDump)]));
    pgliteLoaded = true;
    return { databaseUrl: null, dataDir: 'memory://', drop: async () => {} };
  }
  const name = `gc_test_${randomBytes(6).toString('hex')}`;
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  await sql.unsafe(template?.postgresTemplate ? `create database ${name} template ${template.postgresTemplate}` : `create database ${name}`);
  await sql.end();
  return {
    databaseUrl: databaseUrl(admin, name),
    dataDir: 'memory://',
    async drop() {
      const s = postgres(admin, { max: 1, onnotice: () => {} });
      await s.unsafe(`drop database if exists ${name} with (force)`);
      await s.end();
    },
  };
}

export async function startTestServer(overrides: Partial<Config> = {}, options: AppOptions = {}): Promise<TestServer> {
  const database = await freshDatabase();
  // HTTP_ENGINE runs the whole suite on one engine (docs/runtime.md); by default each run takes what `auto` picks.
  const config = loadConfig(
    { HTTP_ENGINE: process.env.HTTP_ENGINE },
    { host: '127.0.0.1', port: 0, poolThreads: 2, databaseUrl: database.databaseUrl, dataDir: database.dataDir, shutdownGraceMs: 5000, ...overrides },
  );
  const app = await startApp(config, createLogger(process.env.TEST_LOGS === 'true'), options);
  const url = `http://127.0.0.1:${app.port}`;
  const ownerKey = app.ownerKey!;
  return {
    app,
    url,
    ownerKey,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.key === undefined ? ownerKey : options.key;
      if (key) headers.authorization = `Bearer ${key}`;
      let body: string | Uint8Array | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method, headers, body: body as BodyInit | undefined });
      const text = await res.text();
      let json: unknown = undefined;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json };
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

/** A real multi-section document (no lorem ipsum) long enough to compress meaningfully. */
export function sampleDocument(): string {
  const sections = [
    ['Installation', 'Install the package with npm. The service requires Node.js 20 or newer. On Debian 12 the system OpenSSL is sufficient. Native addons are compiled with node-gyp during installation, which needs python3, make and a C++ compiler.'],
    ['Configuration', 'Set PORT to change the listening port; the default is 8080. Set DATABASE_URL to use PostgreSQL instead of the embedded database. The maximum request body is 8 MiB unless MAX_BODY_BYTES says otherwise. Never commit API keys to a repository.'],
    ['Authentication', 'Every request under /v1 needs a bearer token. Keys start with gc_ followed by 32 hexadecimal characters. A revoked key is rejected within five seconds on every instance. Keys are stored as SHA-256 hashes, never in plain text.'],
    ['Compression levels', 'The abstract level keeps about five percent of the tokens. The outline level keeps about ten percent. The balanced level keeps about twenty percent and is the default. The detailed level keeps about forty percent. The raw level returns the input unchanged.'],
    ['Troubleshooting', 'If the server answers 503 with a Retry-After header, the compute pool is saturated and the client should retry later. A 413 status means the body exceeded the configured limit. A 422 status lists every invalid field with its location. Timeouts above 30 seconds usually indicate a blocked database connection.'],
  ];
  return sections.map(([h, p]) => `## ${h}\n\n${p} ${p}`).join('\n\n').repeat(4);
}
