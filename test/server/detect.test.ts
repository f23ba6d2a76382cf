import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTask } from '../../src/domain/compute.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import type { Plan } from '../../src/auth/plans.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const keys: Record<Plan, string> = { free: '', pro: '', team: '', enterprise: '' };

const ORIGINAL =
  'The cache keeps entries for 24 hours. Never store API keys in plain text. The service retries three times before failing.';

beforeAll(async () => {
  server = await startTestServer();
  for (const plan of ['free', 'pro', 'team', 'enterprise'] as Plan[]) {
    const user = await createUser(server.app.services.db, { plan });
    keys[plan] = (await createApiKey(server.app.services.db, { userId: user.id, plan })).key;
  }
});
afterAll(async () => {
  await server?.close();
});

describe(`issue detection route (${DB_KIND})`, () => {
  it('is Pro or Enterprise only: Free and Team get 403', async () => {
    const body = { original_text: ORIGINAL, compressed_text: ORIGINAL };
    for (const plan of ['free', 'team'] as Plan[]) {
      const res = await server.request('POST', '/v1/detect-issues', { body, key: keys[plan] });
      expect(res.status, plan).toBe(403);
      expect(res.json.detail).toMatch(/Pro or Enterprise/);
    }
    for (const plan of ['pro', 'enterprise'] as Plan[]) {
      const res = await server.request('POST', '/v1/detect-issues', { body, key: keys[plan] });
      expect(res.status, plan).toBe(200);
      expect(res.json).toEqual({ issues_found: 0, issues: [], quality_score: 1 });
    }
  });

  it('answers 401 for a bad token and 422 for missing text fields', async () => {
    expect((await server.request('POST', '/v1/detect-issues', { body: {}, key: 'gc_' + 'f'.repeat(32) })).status).toBe(401);
    const missing = await server.request('POST', '/v1/detect-issues', { body: { original_text: ORIGINAL }, key: keys.pro });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].loc).toEqual(['body', 'compressed_text']);
    const empty = await server.request('POST', '/v1/detect-issues', { body: { original_text: '', compressed_text: 'x' }, key: keys.pro });
    expect(empty.status).toBe(422);
  });

  it('flags a changed number as a high-severity hallucination located in the compressed text', async () => {
    const res = await server.request('POST', '/v1/detect-issues', {
      body: { original_text: ORIGINAL, compressed_text: 'The cache keeps entries for 48 hours.' },
      key: keys.pro,
    });
    expect(res.status).toBe(200);
    const hallucination = res.json.issues.find((i: any) => i.type === 'hallucination');
    expect(hallucination.severity).toBe('high');
    expect(hallucination.location).toBeTruthy();
    expect(res.json.quality_score).toBeLessThan(1);
    expect(res.json.issues_found).toBe(res.json.issues.length);
  });

  it('can score a compression in the same call', async () => {
    const res = await server.request('POST', '/v1/compress', { body: { text: sampleDocument(), include_quality: true }, key: keys.pro });
    expect(res.status).toBe(200);
    expect(res.json.quality.quality_score).toBeGreaterThan(0);
    expect(res.json.quality.issues.filter((i: any) => i.type === 'hallucination')).toEqual([]);
    const free = await server.request('POST', '/v1/compress', { body: { text: sampleDocument(), include_quality: true }, key: keys.free });
    expect(free.status).toBe(403);
  });

  it('answers 503 when the detection workers are unavailable', async () => {
    // One thread, held by a long task, and no room to wait: the detector cannot be reached.
    const saturated = await startTestServer({ poolThreads: 1, poolMaxQueue: 0 });
    const hold = new AbortController();
    void runTask(saturated.app.services, 'ping', { holdMs: 60_000 }, { signal: hold.signal, deadlineMs: 60_000 }).catch(() => undefined);
    try {
      const res = await saturated.request('POST', '/v1/detect-issues', { body: { original_text: ORIGINAL, compressed_text: ORIGINAL } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect(res.json.detail).toMatch(/unavailable/i);
    } finally {
      hold.abort();
      await saturated.close();
    }
  });
});
