import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { DOCS, makeTenant, settle } from '../kb/helpers.js';
import { fails, ok } from './helpers.js';

let server: TestServer;
let a: Client;
let b: Client;
let other: Client;
let free: Client;

beforeAll(async () => {
  server = await startTestServer();
  const t = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  b = await connectMcp(server.url, t.keyB);
  other = await connectMcp(server.url, (await makeTenant(server)).keyA);
  free = await connectMcp(server.url, (await makeTenant(server, 'free')).keyA);
});
afterAll(async () => {
  await Promise.allSettled([a, b, other, free].map((c) => c?.close()));
  await server?.close();
});

const STANDUP_VTT = `WEBVTT

00:00:00.000 --> 00:00:05.000
<v Alice>Good morning, let us start the standup.

00:00:05.000 --> 00:00:12.000
<v Bob>Yesterday I migrated the billing database to the new cluster.

00:01:00.000 --> 00:01:08.000
<v Alice>Any blockers with the payment webhook retries?

00:02:30.000 --> 00:02:40.000
<v Bob>The webhook retries are fixed, deploying after lunch.
`;

const PLANNING_SRT = `1
00:00:02,000 --> 00:00:06,000
CAROL: The roadmap puts the mobile app in the third quarter.

2
00:00:06,500 --> 00:00:10,000
DAVE: Then the webhook redesign waits until autumn.
`;

const INTERVIEW = `[00:00:03] Interviewer: Tell me about the lighthouse restoration.
[00:00:09] Keeper: We replaced the lens and repainted the tower in red and white.
[00:00:20] Interviewer: How long did it take?
[00:00:24] Keeper: Two summers of work.`;

describe(`ingest_transcript and search_timeline (${DB_KIND})`, () => {
  let standup: any;
  let planning: any;
  let interview: any;

  beforeAll(async () => {
    standup = await ok(a, 'ingest_transcript', { content: STANDUP_VTT, name: 'Standup', recorded_at: '2026-03-02T09:00:00Z' });
    planning = await ok(a, 'ingest_transcript', { content: PLANNING_SRT, name: 'Planning', recorded_at: '2026-03-05T14:00:00Z', format: 'srt' });
    interview = await ok(a, 'ingest_transcript', { content: INTERVIEW, name: 'Interview', recorded_at: '2026-03-10T10:00:00Z' });
    await settle(server);
  });

  it('parses VTT, SRT and speaker-labelled text into timestamped segments', () => {
    expect(standup).toMatchObject({ format: 'vtt', timing: 'source', segment_count: 4, duration_seconds: 160, speakers: ['Alice', 'Bob'], version_number: 1 });
    expect(standup.segments[1]).toEqual({ ordinal: 1, start_seconds: 5, end_seconds: 12, speaker: 'Bob', text: 'Yesterday I migrated the billing database to the new cluster.' });
    expect(standup.recorded_at).toBe('2026-03-02T09:00:00.000Z');
    expect(planning).toMatchObject({ format: 'srt', segment_count: 2, speakers: ['CAROL', 'DAVE'] });
    expect(interview).toMatchObject({ format: 'speaker_text', timing: 'source', segment_count: 4, speakers: ['Interviewer', 'Keeper'] });
    expect(interview.segments[1]).toMatchObject({ start_seconds: 9, end_seconds: 20, speaker: 'Keeper' });
  });

  it('the transcript is a Knowledge Hub item: searchable with gc_kb_query, with a version history', async () => {
    const q = await ok(a, 'gc_kb_query', { query: 'lighthouse lens repainted', limit: 1 });
    expect(q.results[0].item_id).toBe(interview.item_id);
    expect(q.results[0].raw_text).toMatch(/\[00:00:09\.000 - 00:00:20\.000\] Keeper: We replaced the lens/);
    const got = await ok(a, 'gc_kb_get', { item_id: standup.item_id });
    expect(got).toMatchObject({ type: 'transcript', name: 'Standup', status: 'ready' });
  });

  it('search_timeline: query plus time range, offsets and speakers', async () => {
    const r = await ok(a, 'search_timeline', { query: 'webhook retries' });
    // Both standup segments that name webhook retries lead (BM25; the shorter one first).
    expect(r.results.slice(0, 2).map((x: any) => [x.item_id, x.start_seconds]).sort()).toEqual([[standup.item_id, 150], [standup.item_id, 60]].sort());
    expect(r.results.find((x: any) => x.start_seconds === 150)).toMatchObject({ kind: 'transcript', speaker: 'Bob', end_seconds: 160, timestamp: '2026-03-02T09:02:30.000Z', end_timestamp: '2026-03-02T09:02:40.000Z' });
    expect(r.results[0].score).toBeGreaterThan(r.results.at(-1).score);
    const items = new Set(r.results.map((x: any) => x.item_id));
    expect(items.has(planning.item_id)).toBe(true);
    expect(items.has(interview.item_id)).toBe(false);

    // Absolute range: only the standup's morning.
    const morning = await ok(a, 'search_timeline', { query: 'webhook', from: '2026-03-02T00:00:00Z', to: '2026-03-02T23:59:59Z' });
    expect(morning.results.length).toBeGreaterThan(0);
    expect(morning.results.every((x: any) => x.item_id === standup.item_id)).toBe(true);
    // A range that cuts the standup after its first minute.
    const early = await ok(a, 'search_timeline', { query: 'webhook retries', to: '2026-03-02T09:01:30Z' });
    expect(early.results.map((x: any) => x.start_seconds)).toEqual([60]);
    // Offsets within recordings, and a speaker.
    const offsets = await ok(a, 'search_timeline', { offset_from_seconds: 0, offset_to_seconds: 4, order: 'time' });
    expect(offsets.results.map((x: any) => [x.item_id, x.start_seconds])).toEqual([
      [standup.item_id, 0],
      [planning.item_id, 2],
      [interview.item_id, 3],
    ]);
    const keeper = await ok(a, 'search_timeline', { speaker: 'keeper' });
    expect(keeper.results.map((x: any) => x.text)).toEqual(['We replaced the lens and repainted the tower in red and white.', 'Two summers of work.']);
    // No query: the timeline in order.
    const list = await ok(a, 'search_timeline', { kinds: ['transcript'], limit: 100 });
    const times = list.results.map((x: any) => Date.parse(x.timestamp));
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(list.total).toBe(10);
  });

  it('documents share the timeline (by the time their version was written)', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const doc = (await ok(a, 'gc_kb_ingest', { name: 'Webhook runbook', content: `# Webhook runbook\n\nWhen webhook retries pile up, drain the queue and replay.\n\n${DOCS.rockets}` })).item_id;
    await settle(server);
    const r = await ok(a, 'search_timeline', { query: 'webhook retries', from: before });
    expect(r.results.map((x: any) => [x.kind, x.item_id])).toEqual([['document', doc]]);
    expect(Date.parse(r.results[0].timestamp)).toBeGreaterThanOrEqual(Date.parse(before));
    const both = await ok(a, 'search_timeline', { query: 'webhook retries' });
    expect(new Set(both.results.map((x: any) => x.kind))).toEqual(new Set(['transcript', 'document']));
    const onlyDocs = await ok(a, 'search_timeline', { query: 'webhook', kinds: ['document'] });
    expect(onlyDocs.results.every((x: any) => x.kind === 'document')).toBe(true);
  });

  it('refresh_document re-parses a transcript; history shows both versions', async () => {
    const same = await ok(a, 'refresh_document', { item_id: interview.item_id, content: INTERVIEW });
    expect(same.changed).toBe(false);
    const changed = await ok(a, 'refresh_document', { item_id: interview.item_id, content: `${INTERVIEW}\n[00:00:30] Interviewer: Thank you, keeper.` });
    expect(changed).toMatchObject({ changed: true, version_number: 2 });
    await settle(server);
    const r = await ok(a, 'search_timeline', { item_ids: [interview.item_id], limit: 100 });
    expect(r.results).toHaveLength(5);
    expect(r.results.at(-1)).toMatchObject({ text: 'Thank you, keeper.', timestamp: '2026-03-10T10:00:30.000Z' });
    const bad = await fails(a, 'refresh_document', { item_id: interview.item_id, content: 'WEBVTT\n\nnot a cue' });
    expect(bad.error).toBe('invalid_request');
    expect(bad.detail).toMatch(/Malformed WebVTT/);
  });

  it('malformed transcripts, bad ranges, other users, plan gate', async () => {
    const vtt = await fails(a, 'ingest_transcript', { content: 'WEBVTT\n\n00:00:01.000 --> banana\nhello\n' });
    expect(vtt).toMatchObject({ error: 'invalid_request' });
    expect(vtt.detail).toMatch(/Malformed WebVTT: expected timestamp at row 3/);
    expect((await fails(a, 'ingest_transcript', { content: '1\n00:00:05,000 --> 00:00:01,000\nx\n' })).detail).toMatch(/before it starts/);
    expect((await fails(a, 'ingest_transcript', { content: 'plain prose without labels' })).detail).toMatch(/No speaker labels/);
    expect((await fails(a, 'ingest_transcript', { content: 'A: hi', recorded_at: 'yesterday' })).detail).toMatch(/not an ISO-8601/);
    expect((await fails(a, 'ingest_transcript', { content: 'A: hi', format: 'docx' })).error).toBe('validation_error');
    expect((await fails(a, 'search_timeline', { from: '2026-03-05T00:00:00Z', to: '2026-03-01T00:00:00Z' })).detail).toMatch(/from is after to/);
    expect((await fails(a, 'search_timeline', { from: 'soon' })).detail).toMatch(/not an ISO-8601/);
    // A private transcript of key a is not on key b's timeline; another user sees nothing.
    const secret = await ok(a, 'ingest_transcript', { content: 'Alice: the vault code is zeppelin', visibility: 'private' });
    expect((await ok(b, 'search_timeline', { query: 'zeppelin vault' })).results).toEqual([]);
    expect((await ok(a, 'search_timeline', { query: 'zeppelin vault' })).results[0].item_id).toBe(secret.item_id);
    expect((await ok(other, 'search_timeline', { query: 'webhook retries' })).results).toEqual([]);
    expect((await ok(other, 'search_timeline', { item_ids: [standup.item_id] })).results).toEqual([]);
    for (const tool of ['ingest_transcript', 'search_timeline']) expect((await fails(free, tool, {})).error, tool).toBe('plan_required');
    await settle(server);
  });
});
