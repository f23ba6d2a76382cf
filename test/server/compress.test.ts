import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let freeKey: string;
let proKey: string;

beforeAll(async () => {
  server = await startTestServer();
  const db = server.app.services.db;
  freeKey = (await createApiKey(db, { userId: (await createUser(db, { plan: 'free' })).id, plan: 'free' })).key;
  proKey = (await createApiKey(db, { userId: (await createUser(db, { plan: 'pro' })).id, plan: 'pro' })).key;
});
afterAll(async () => {
  await server?.close();
});

describe(`semantic cache (${DB_KIND})`, () => {
  it('returns a stored response byte for byte with X-Semantic-Cache: hit for Pro', async () => {
    const body = { text: sampleDocument() + ' cache probe one.', fidelity: 'outline', query: 'revoked keys' };
    const first = await server.request('POST', '/v1/compress', { body, key: proKey });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-semantic-cache')).toBe('miss');
    const second = await server.request('POST', '/v1/compress', { body: { ...body, query: '  revoked   keys ' }, key: proKey });
    expect(second.headers.get('x-semantic-cache')).toBe('hit');
    expect(second.text).toBe(first.text);
    await server.app.services.background.drain();
    const rows = await server.app.services.db.query<{ cache_hit: boolean }>(
      "select cache_hit from usage_events where fidelity = 'outline' and key_id is not null order by created_at",
    );
    expect(rows.map((r) => r.cache_hit)).toContain(true);
  });

  it('keys the cache per tenant and per request', async () => {
    const text = sampleDocument() + ' cache probe two.';
    await server.request('POST', '/v1/compress', { body: { text }, key: proKey });
    const otherFidelity = await server.request('POST', '/v1/compress', { body: { text, fidelity: 'detailed' }, key: proKey });
    expect(otherFidelity.headers.get('x-semantic-cache')).toBe('miss');
    const otherTenant = await server.request('POST', '/v1/compress', { body: { text } });
    expect(otherTenant.headers.get('x-semantic-cache')).toBe('miss');
  });

  it('bypasses the cache for Free', async () => {
    const body = { text: sampleDocument() + ' cache probe three.' };
    const a = await server.request('POST', '/v1/compress', { body, key: freeKey });
    const b = await server.request('POST', '/v1/compress', { body, key: freeKey });
    expect(a.headers.get('x-semantic-cache')).toBe('bypass');
    expect(b.headers.get('x-semantic-cache')).toBe('bypass');
  });
});

describe(`original-output preservation (${DB_KIND})`, () => {
  it('keeps one original per owner and text: compressed again, the same id; another owner gets its own', async () => {
    const body = { text: sampleDocument() + ' preservation probe.', fidelity: 'abstract' };
    const a = await server.request('POST', '/v1/compress', { body, key: freeKey });
    const b = await server.request('POST', '/v1/compress', { body, key: freeKey });
    const other = await server.request('POST', '/v1/compress', { body, key: proKey });
    expect(a.json.savings_percent).toBeGreaterThan(80);
    expect(a.json.original_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.json.original_id).toBe(a.json.original_id);
    expect(other.json.original_id).not.toBe(a.json.original_id);
    const rows = await server.app.services.db.query<{ n: number }>('select count(*)::int as n from preserved_originals where content = $1', [body.text]);
    expect(rows[0]!.n).toBe(2);
  });
});

describe(`batch compress (${DB_KIND})`, () => {
  it('compresses each document in order with its own fidelity, and reports failures per document', async () => {
    const doc = sampleDocument();
    const res = await server.request('POST', '/v1/batch-compress', {
      body: {
        documents: [
          { id: 'a', text: doc, fidelity: 'abstract' },
          { id: 'b', text: doc, fidelity: 'nonsense' },
          { id: 'c', text: '' },
          { id: 'd', text: doc, fidelity: 'raw' },
          { id: 'e', text: doc, query: 'database url' },
        ],
      },
    });
    expect(res.status).toBe(200);
    const { results, summary } = res.json;
    expect(results.map((r: any) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(results[0].fidelity).toBe('abstract');
    expect(results[0].error).toBeNull();
    expect(results[1].error).toContain("'nonsense'");
    expect(results[2].error).toBeTruthy();
    expect(results[3].compressed_text).toBe(doc);
    expect(results[4].mode).toBe('query-guided');
    expect(summary).toMatchObject({ documents: 5, succeeded: 3, failed: 2 });
    const ok = results.filter((r: any) => !r.error);
    expect(summary.total_original_tokens).toBe(ok.reduce((s: number, r: any) => s + r.original_tokens, 0));
    expect(summary.total_compressed_tokens).toBe(ok.reduce((s: number, r: any) => s + r.compressed_tokens, 0));
  });

  it('accepts 50 documents and rejects 51 with 422', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => ({ text: `Document ${i}. It has two sentences.` }));
    const ok = await server.request('POST', '/v1/batch-compress', { body: { documents: fifty } });
    expect(ok.status).toBe(200);
    expect(ok.json.summary.succeeded).toBe(50);
    const res = await server.request('POST', '/v1/batch-compress', { body: { documents: [...fifty, { text: 'one more' }] } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'documents']);
  });

  it('documents that share a pool task each get what /v1/compress gives them alone, and a usage event each', async () => {
    const user = await createUser(server.app.services.db, { plan: 'free' });
    const { key, row } = await createApiKey(server.app.services.db, { userId: user.id, plan: 'free' });
    const fidelities = ['balanced', 'abstract', 'outline', 'raw'] as const;
    // 11 small documents: one group of 8 and one of 3, with a failing document between them (its own unit).
    const documents: { id: string; text: string; fidelity?: string }[] = Array.from({ length: 11 }, (_, i) => ({
      id: `g${i}`,
      text: `Document ${i} explains the deployment. It lists ${i + 2} steps in order. The last step restarts the service and checks its health.`,
      fidelity: fidelities[i % fidelities.length],
    }));
    documents.splice(5, 0, { id: 'bad', text: 'Not compressed.', fidelity: 'nope' });
    const res = await server.request('POST', '/v1/batch-compress', { key, body: { documents } });
    expect(res.status).toBe(200);
    const results = res.json.results as any[];
    expect(results.map((r) => r.id)).toEqual(documents.map((d) => d.id));
    expect(results.map((r) => r.index)).toEqual(documents.map((_, i) => i));
    expect(results[5].error).toContain("'nope'");
    for (const [i, doc] of documents.entries()) {
      if (doc.id === 'bad') continue;
      const alone = await server.request('POST', '/v1/compress', { key, body: { text: doc.text, fidelity: doc.fidelity } });
      const { index, id, error, original_id: kept, ...response } = results[i];
      const { original_id: keptAlone, ...responseAlone } = alone.json;
      expect({ index, id, error }).toEqual({ index: i, id: doc.id, error: null });
      expect(response).toEqual(responseAlone);
      expect(kept === null).toBe(keptAlone === null); // a preserved original gets a new id each time
    }
    await server.app.services.background.drain();
    const [events] = await server.app.services.db.query<{ ok: number; failed: number }>(
      `select count(*) filter (where status = 'success')::int as ok, count(*) filter (where status <> 'success')::int as failed
         from usage_events where key_id = $1 and method = 'batch'`,
      [row.key_id],
    );
    expect(events).toEqual({ ok: 11, failed: 1 });
  });

  it('a key with an enforced quota still has each document checked as it starts: the batch stops at the quota', async () => {
    const user = await createUser(server.app.services.db, { plan: 'free' });
    const { key } = await createApiKey(server.app.services.db, { userId: user.id, plan: 'free', monthlyQuota: 1, enforceQuota: true });
    // Four documents start at once (under a count of 0); the fifth starts after one has finished and
    // counted. Grouped, all six would have been admitted before any ran.
    const documents = Array.from({ length: 6 }, (_, i) => ({ text: `Quota document ${i}. It has two sentences.` }));
    const res = await server.request('POST', '/v1/batch-compress', { key, body: { documents } });
    expect(res.status).toBe(429);
    expect(res.json.detail).toMatch(/quota/i);
  });

  it('records batch usage events', async () => {
    await server.app.services.background.drain();
    const [row] = await server.app.services.db.query<{ n: number }>("select count(*)::int as n from usage_events where method = 'batch'");
    expect(row!.n).toBeGreaterThanOrEqual(53);
  });
});

describe(`recommend (${DB_KIND})`, () => {
  it('applies the size rule and the 70% context-window step-up', async () => {
    const small = await server.request('POST', '/v1/recommend', { body: { document: 'A short note about nothing much.' } });
    expect(small.status).toBe(200);
    expect(small.json.recommended_fidelity).toBe('detailed');
    const doc = sampleDocument().repeat(3);
    const big = await server.request('POST', '/v1/recommend', { body: { document: doc } });
    expect(big.json.original_tokens).toBeGreaterThan(2000);
    expect(big.json.recommended_fidelity).toBe('outline');
    const tight = await server.request('POST', '/v1/recommend', { body: { document: doc, context_window: 400 } });
    expect(tight.json.recommended_fidelity).toBe('abstract');
    const missing = await server.request('POST', '/v1/recommend', { body: {} });
    expect(missing.status).toBe(422);
  });
});

describe(`semantic cache on Redis (${DB_KIND})`, () => {
  it('stores and serves hits through Redis when REDIS_URL is set', async () => {
    const { Redis } = await import('ioredis');
    const redisServer = await startTestServer({ redisUrl: 'redis://127.0.0.1:6379' });
    const probe = new Redis('redis://127.0.0.1:6379');
    try {
      expect(redisServer.app.services.cache.kind).toBe('redis');
      const body = { text: `${sampleDocument()} redis probe ${Date.now()} ${Math.random()}.` };
      const first = await redisServer.request('POST', '/v1/compress', { body });
      expect(first.headers.get('x-semantic-cache')).toBe('miss');
      const keys = await probe.keys('gc:sc:*');
      expect(keys.length).toBeGreaterThan(0);
      const ttl = await probe.pttl(keys[0]!);
      expect(ttl).toBeGreaterThan(0);
      const second = await redisServer.request('POST', '/v1/compress', { body });
      expect(second.headers.get('x-semantic-cache')).toBe('hit');
      expect(second.text).toBe(first.text);
    } finally {
      probe.disconnect();
      await redisServer.close();
    }
  });
});
