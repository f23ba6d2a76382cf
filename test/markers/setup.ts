import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { newKey } from '../helpers/users.js';

/** The marker tests' server: no rate limits, two Pro users (the second for cross-tenant checks), and `/v1/expand`. */
export interface MarkerServer {
  server: TestServer;
  proKey: string;
  otherKey: string;
  expand(body: unknown, key?: string): ReturnType<TestServer['request']>;
}

export function markerServer(): MarkerServer {
  const ctx: MarkerServer = {
    server: null as unknown as TestServer,
    proKey: '',
    otherKey: '',
    expand: (body, key = ctx.proKey) => ctx.server.request('POST', '/v1/expand', { key, body }),
  };
  beforeAll(async () => {
    ctx.server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
    ctx.proKey = await newKey(ctx.server, 'pro');
    ctx.otherKey = await newKey(ctx.server, 'pro');
  });
  afterAll(async () => {
    await ctx.server?.close();
  });
  return ctx;
}
