import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Logger } from '../../src/lib/log.js';
import { call } from '../helpers/mcp.js';
import { freshDatabase } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';

export interface CapturingServer {
  app: RunningApp;
  url: string;
  /** Every log line the app wrote (JSON), for the secret grep. */
  logs: string[];
  close(): Promise<void>;
}

/** startTestServer with a logger that keeps every line, and fast run polling. */
export async function startCapturingServer(overrides: Partial<Config> = {}): Promise<CapturingServer> {
  const database = await freshDatabase();
  const base = loadConfig({});
  const config = loadConfig({}, {
    host: '127.0.0.1', port: 0, poolThreads: 2, databaseUrl: database.databaseUrl, dataDir: database.dataDir, shutdownGraceMs: 5000,
    llm: { ...base.llm, keySecret: randomBytes(32), timeoutMs: 5000, maxRetries: 2, backoffBaseMs: 10 },
    runs: { ...base.runs, pollMs: 100, leaseMs: 2000 },
    ...overrides,
  });
  const logs: string[] = [];
  const write = (level: string) => (msg: string, fields: Record<string, unknown> = {}) => {
    logs.push(JSON.stringify({ level, msg, ...fields }));
  };
  const logger: Logger = { info: write('info'), warn: write('warn'), error: write('error') };
  const app = await startApp(config, logger);
  return {
    app,
    url: `http://127.0.0.1:${app.port}`,
    logs,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

/** Polls gc_run_status until `until` holds (default: the run left queued/running); the timeout only catches a stuck run. */
export async function waitForRun(client: Client, runId: string, timeoutMs = 30_000, until: (s: any) => boolean = (s) => !['queued', 'running'].includes(s.status)): Promise<any> {
  let last: unknown;
  return waitFor(() => `run ${runId} still ${JSON.stringify(last)}`, async () => {
    const s = await call(client, 'gc_run_status', { run_id: runId });
    if (s.isError) throw new Error(JSON.stringify(s.data));
    last = s.data;
    return until(s.data) && s.data;
  }, { timeoutMs, everyMs: 50 });
}

/** The three-node workflow of the issue: kb_query → compress → llm. */
export function threeNodeGraph(llm: Record<string, unknown> = {}) {
  return {
    nodes: [
      { id: 'search', type: 'kb_query', params: { query: '{{input.question}}', limit: 3 } },
      { id: 'squeeze', type: 'compress', params: { fidelity: 'outline', query: '{{input.question}}' } },
      { id: 'answer', type: 'llm', params: { prompt: 'Answer the question {{input.question}} from this context:\n{{nodes.squeeze.text}}', max_tokens: 200, ...llm } },
    ],
    edges: [
      { from: 'search', to: 'squeeze' },
      { from: 'squeeze', to: 'answer' },
    ],
  };
}
