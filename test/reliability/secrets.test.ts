// Secrets never appear in logs, error bodies or the database in plain text: the real process runs a
// session of key and token traffic (good and bad), then its whole output, every answer and a dump of
// every table are searched for each secret it saw.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnUntil, stop } from '../../bench/lib/spawn.js';
import { packageRoot } from '../../src/lib/root.js';
import { openStore } from '../../src/store/index.js';
import { DB_KIND, freshDatabase } from '../helpers/server.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

describe(`secrets stay secret (${DB_KIND})`, () => {
  it('keys, confirm tokens, wrong keys and webhook secrets are in no log line, no error body and no table', async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'gc-secrets-'));
    cleanup.push(async () => {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const webhookSecret = `whsec_${'s3cr3t'.repeat(6)}`;
    const proc = await spawnUntil(
      join(packageRoot(), 'dist/src/main.js'),
      { DATABASE_URL: db.databaseUrl ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_REQUESTS: 'true', IDENTITY_WEBHOOK_SECRET: webhookSecret },
      /(gc_[0-9a-f]{32})/,
    );
    const port = Number(/"port":(\d+)/.exec(proc.output())![1]);
    const owner = proc.match[1]!;
    /** Error answers only: a key or token is returned once, in its own creation response, by design. */
    const errors: string[] = [];
    const req = async (method: string, path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 400) errors.push(text);
      return { status: res.status, json: text ? JSON.parse(text) : null };
    };

    const secrets: string[] = [webhookSecret];
    const created = await req('POST', '/v1/keys', owner, { name: 'second' });
    secrets.push(created.json.key);
    const rotated = await req('POST', `/v1/keys/${created.json.key_id}/rotate`, owner, { grace_period_days: 1 });
    secrets.push(rotated.json.key);
    const token = await req('POST', `/v1/keys/${rotated.json.key_id}/confirm-tokens`, owner, { operation: 'revoke' });
    if (token.json.token) secrets.push(token.json.token);
    const wrong = `gc_${'ab'.repeat(16)}`;
    secrets.push(wrong);
    expect((await req('GET', '/v1/keys', wrong)).status).toBe(401);
    expect((await req('POST', '/mcp', wrong, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json, text/event-stream' })).status).toBe(401);
    expect((await req('POST', '/v1/webhooks/identity', null, { type: 'user.created' }, { 'x-signature': 'bad' })).status).toBeGreaterThanOrEqual(400);
    await req('POST', '/v1/compress', created.json.key, { text: 'A call with the second key.' });
    await req('DELETE', `/v1/keys/${rotated.json.key_id}`, owner);
    await stop(proc.child);

    const logs = proc.output();
    const store = await openStore({ databaseUrl: db.databaseUrl, dataDir });
    let dump = '';
    try {
      const tables = await store.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public'");
      for (const { table_name } of tables) {
        const rows = await store.query<{ row: string }>(`select row_to_json(t)::text as row from "${table_name}" t`);
        dump += rows.map((r) => r.row).join('\n');
      }
    } finally {
      await store.close();
    }
    expect(dump.length).toBeGreaterThan(1000);
    expect(logs).toContain('request'); // request logging was on
    // The owner key is shown once, in the plain-text banner at first start; no structured log line has it.
    const logLines = logs.split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(5);
    for (const secret of [...secrets, owner]) {
      expect(logLines.filter((l) => l.includes(secret)), `a log line holds ${secret.slice(0, 8)}…`).toEqual([]);
      if (secret !== owner) expect(logs).not.toContain(secret);
      expect(dump, `a table holds ${secret.slice(0, 8)}…`).not.toContain(secret);
      expect(errors.filter((a) => a.includes(secret)), `an error body holds ${secret.slice(0, 8)}…`).toEqual([]);
    }
  });
});
