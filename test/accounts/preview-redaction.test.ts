// Usage previews stored verbatim before previews were redacted (issue 45) are redacted once at start
// (src/domain/metering/previewRedaction.ts): full credentials, and one cut short by the old
// 100-character cut; clean previews are left as they are; the pass is recorded and not run again.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPreviewRedaction } from '../../src/domain/metering/previewRedaction.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const log = { lines: [] as string[], info(m: string) { this.lines.push(m); } };

describe(`previews stored before redaction (${DB_KIND})`, () => {
  it('are redacted once at start, a credential cut at the 100th character included', async () => {
    const db = server.app.services.db;
    const [{ id: userId }] = (await db.query<{ id: string }>('select id from users limit 1')) as [{ id: string }];
    const live = server.ownerKey;
    const aws = `AKIA${Array.from(randomBytes(16), (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[b % 32]).join('')}`;
    const cut = `${'y'.repeat(90)} gc_0123456`; // an old preview: 100 characters, a key cut by them
    const old = [`Why does ${live} fail with ${aws}?`, cut, 'A clean first line.'];
    const ids: string[] = [];
    for (const preview of old) {
      const [row] = await db.query<{ id: string }>(`insert into usage_events (user_id, method, status, input_preview) values ($1, 'REST', 'success', $2) returning id`, [userId, preview]);
      ids.push(row!.id);
    }
    // The server's own start ran the pass on an empty table and recorded it: as after an upgrade, run it anew.
    expect((await db.query(`select 1 from maintenance_done where name = 'redact_usage_previews_v1'`)).length).toBe(1);
    await db.query(`delete from maintenance_done where name = 'redact_usage_previews_v1'`);

    expect(await startPreviewRedaction(db, log).done).toBe(2);
    const after = await db.query<{ id: string; input_preview: string }>('select id, input_preview from usage_events where id = any($1::uuid[])', [ids]);
    const byId = new Map(after.map((r) => [r.id, r.input_preview]));
    expect(byId.get(ids[0]!)).toBe('Why does [redacted:gc_key] fail with [redacted:aws_access_key_id]?');
    expect(byId.get(ids[1]!)).toBe(`${'y'.repeat(90)} [redacted:cut]`);
    expect(byId.get(ids[2]!)).toBe('A clean first line.');
    expect(log.lines).toContain('stored usage previews redacted');
    // Recorded: the next start does not scan again.
    await db.query(`update usage_events set input_preview = $2 where id = $1`, [ids[2], `again ${aws}`]);
    expect(await startPreviewRedaction(db, log).done).toBe(0);
    expect((await db.query<{ input_preview: string }>('select input_preview from usage_events where id = $1', [ids[2]]))[0]!.input_preview).toBe(`again ${aws}`);
  });
});
