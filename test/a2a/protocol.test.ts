// The A2A protocol (v1.0) driven by the official client (@a2a-js/sdk 1.3.0) over a real socket:
// the card's HTTP+JSON interface (and its JSON-RPC one), text compressed into an artifact, a long skill
// streamed as status updates then the artifact, get / list / cancel, owner scoping, clear errors.
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { ContentTypeNotSupportedError, RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTask } from '../../src/domain/compute.js';
import { makeUser } from '../accounts/helpers.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';
import { a2aClient, asTask, codebase, kindOf, messageOf, skillMessage, textMessage } from './helpers.js';
import { waitFor } from '../helpers/waitFor.js';

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer({ poolThreads: 1 });
  client = await a2aClient(server.url, server.ownerKey);
});
afterAll(async () => {
  await server?.close();
});

const dataPart = (parts: { content?: { $case: string; value: unknown } }[] | undefined) => parts?.find((p) => p.content?.$case === 'data')?.content?.value as Record<string, any>;
const textPart = (parts: { content?: { $case: string; value: unknown } }[] | undefined) => parts?.find((p) => p.content?.$case === 'text')?.content?.value as string;

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** Waits until the pool has work queued (so a held thread keeps a task working). */
async function untilQueued(): Promise<void> {
  await waitFor('work queued in the pool', () => server.app.services.pool.stats().queue_size > 0);
}

describe(`A2A protocol over HTTP+JSON, with the official client (${DB_KIND})`, () => {
  it('createFromUrl(base) picks the card’s HTTP+JSON interface, at the base URL as the spec states', () => {
    expect(client.transport.protocolName).toBe('HTTP+JSON');
    expect((client.transport as unknown as { endpoint: string }).endpoint).toBe(server.url);
  });

  it('serves the same HTTP+JSON operations under the spec’s A2A prefix /a2a/v1', async () => {
    const prefixed = await a2aClient(server.url, server.ownerKey, undefined, false, (card) => ({
      ...card,
      supportedInterfaces: card.supportedInterfaces.map((i) => (i.protocolBinding === 'HTTP+JSON' ? { ...i, url: `${server.url}/a2a/v1` } : i)),
    }));
    expect((prefixed.transport as unknown as { endpoint: string }).endpoint).toBe(`${server.url}/a2a/v1`);
    const task = asTask(await prefixed.sendMessage(textMessage('A note sent to the prefixed binding.')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await prefixed.getTask({ id: task.id, tenant: '' })).id).toBe(task.id);
    expect((await client.getTask({ id: task.id, tenant: '' })).id).toBe(task.id);
    const events = await collect(prefixed.sendMessageStream(textMessage('Streamed to the prefixed binding.')));
    expect(events.map(kindOf)).toEqual(['task', 'statusUpdate', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
  });

  it('message:send with a text part answers a completed task whose artifact holds the compressed text (same as /v1/compress at balanced)', async () => {
    const text = sampleDocument();
    const started = performance.now();
    const task = asTask(await client.sendMessage(textMessage(text)));
    const ms = performance.now() - started;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(task.history[0]?.parts[0]?.content).toEqual({ $case: 'text', value: text });
    const artifact = task.artifacts[0]!;
    expect(artifact.name).toBe('compressed_text');
    const compressed = textPart(artifact.parts);
    const figures = dataPart(artifact.parts);
    expect(figures.fidelity).toBe('balanced');
    expect(figures.compressed_tokens).toBeLessThan(figures.original_tokens);
    const rest = await server.request('POST', '/v1/compress', { body: { text } });
    expect(compressed).toBe(rest.json.compressed_text);
    expect(figures.compressed_tokens).toBe(rest.json.compressed_tokens);
    console.log(`[a2a] message:send (text, ${text.length} chars) answered completed in ${ms.toFixed(0)} ms`);
  });

  it('a text message writes one usage event like /v1/compress; a skill one like its MCP tool', async () => {
    const user = await makeUser(server, 'pro');
    const c = await a2aClient(server.url, user.key);
    asTask(await c.sendMessage(textMessage(sampleDocument())));
    asTask(await c.sendMessage(skillMessage('estimate_tokens', { text: 'count these few words' })));
    await server.app.services.background.drain();
    const rows = await server.app.services.db.query<{ method: string; tool_name: string | null; status: string }>(
      'select method, tool_name, status from usage_events where user_id = $1 order by created_at',
      [user.userId],
    );
    expect(rows.map((r) => [r.method, r.tool_name, r.status])).toEqual([
      ['REST', null, 'success'],
      [expect.stringMatching(/^(MCP|mcp_advisory)$/), 'estimate_tokens', 'success'],
    ]);
  });

  it('message:stream of a long skill (compress_codebase): the task, status updates per compute step, the artifact, then completed', async () => {
    const events = await collect(client.sendMessageStream(skillMessage('compress_codebase', { files: codebase(40), query: 'widget area' })));
    const kinds = events.map(kindOf);
    console.log(`[a2a] message:stream compress_codebase: ${events.length} events: ${kinds.join(', ')}`);
    expect(kinds[0]).toBe('task');
    expect(kinds.at(-2)).toBe('artifactUpdate');
    expect(kinds.at(-1)).toBe('statusUpdate');
    const statuses = events.filter((e) => e.payload?.$case === 'statusUpdate').map((e) => (e.payload as { value: any }).value);
    const working = statuses.filter((s) => s.status.state === TaskState.TASK_STATE_WORKING);
    expect(working.length).toBeGreaterThanOrEqual(4);
    const progress = working.map((s) => s.metadata?.progress).filter((p) => p !== undefined);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(statuses.at(-1)!.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const artifact = (events.at(-2)!.payload as { value: any }).value.artifact;
    expect(artifact.name).toBe('compress_codebase');
    expect(textPart(artifact.parts)).toContain('helper');
    expect(dataPart(artifact.parts).files).toBe(40);
    // The stored task says the same.
    const taskId = (events[0]!.payload as { value: any }).value.id;
    const stored = await client.getTask({ id: taskId, tenant: '' });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataPart(stored.artifacts[0]!.parts).files).toBe(40);
  });

  it('gets a task (historyLength), lists the caller’s tasks with paging and a status filter', async () => {
    const first = asTask(await client.sendMessage(textMessage('The first short note about compression.')));
    const second = asTask(await client.sendMessage(textMessage('The second short note about compression.')));
    const got = await client.getTask({ id: first.id, tenant: '' });
    expect(got.id).toBe(first.id);
    expect(got.history).toHaveLength(1);
    expect((await client.getTask({ id: first.id, tenant: '', historyLength: 0 })).history).toHaveLength(0);

    const page1 = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 1, pageToken: '', statusTimestampAfter: undefined });
    expect(page1.tasks).toHaveLength(1);
    expect(page1.tasks[0]!.id).toBe(second.id); // most recently updated first
    expect(page1.tasks[0]!.artifacts).toEqual([]); // without includeArtifacts
    expect(page1.totalSize).toBeGreaterThanOrEqual(2);
    expect(page1.nextPageToken).not.toBe('');
    const page2 = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 1, pageToken: page1.nextPageToken, statusTimestampAfter: undefined, includeArtifacts: true });
    expect(page2.tasks[0]!.id).toBe(first.id);
    expect(page2.tasks[0]!.artifacts.length).toBe(1);

    const byContext = await client.listTasks({ tenant: '', contextId: first.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined });
    expect(byContext.tasks.map((t) => t.id)).toEqual([first.id]);
    const completed = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_COMPLETED, pageToken: '', statusTimestampAfter: undefined });
    expect(completed.tasks.every((t) => t.status?.state === TaskState.TASK_STATE_COMPLETED)).toBe(true);
  });

  it('cancels a working task (its pool work is dropped); a finished task is not cancelable', async () => {
    const hold = runTask(server.app.services, 'ping', { holdMs: 2500 }, { owner: 'someone-else' });
    const polling = await a2aClient(server.url, server.ownerKey, undefined, true);
    const task = asTask(await polling.sendMessage(skillMessage('compress_codebase', { files: codebase(12) })));
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status?.state);
    await untilQueued();
    const canceled = await client.cancelTask({ id: task.id, tenant: '', metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    let holding = true;
    void hold.then(() => (holding = false));
    await waitFor('the canceled task left the queue', () => server.app.services.pool.stats().queue_size === 0);
    expect(holding).toBe(true); // it left at once, not when the held thread freed up
    await hold;
    // Once the pool is idle nothing is left that could still finish the canceled task.
    await waitFor('the pool is idle', () => server.app.services.pool.stats().running === 0 && server.app.services.pool.stats().queue_size === 0);
    expect((await client.getTask({ id: task.id, tenant: '' })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // Canceling again answers the canceled task; a completed one cannot be canceled.
    expect((await client.cancelTask({ id: task.id, tenant: '', metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const done = asTask(await client.sendMessage(textMessage('A note that completes at once.')));
    await expect(client.cancelTask({ id: done.id, tenant: '', metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
  });

  it('tasks/{id}:subscribe follows a working task to its end; a finished one is UnsupportedOperationError', async () => {
    const hold = runTask(server.app.services, 'ping', { holdMs: 800 }, { owner: 'someone-else' });
    const polling = await a2aClient(server.url, server.ownerKey, undefined, true);
    const task = asTask(await polling.sendMessage(skillMessage('compress_codebase', { files: codebase(8) })));
    const events = await collect(client.resubscribeTask({ id: task.id, tenant: '' }));
    await hold;
    expect(kindOf(events[0]!)).toBe('task');
    expect(events.map(kindOf)).toContain('artifactUpdate');
    expect((events.at(-1)!.payload as { value: any }).value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(collect(client.resubscribeTask({ id: task.id, tenant: '' }))).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('another user’s task is TaskNotFoundError (404) for get, cancel and subscribe, and absent from their list', async () => {
    const mine = asTask(await client.sendMessage(textMessage('Owner-scoped note.')));
    const other = await makeUser(server, 'pro');
    const theirs = await a2aClient(server.url, other.key);
    await expect(theirs.getTask({ id: mine.id, tenant: '' })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(theirs.cancelTask({ id: mine.id, tenant: '', metadata: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(collect(theirs.resubscribeTask({ id: mine.id, tenant: '' }))).rejects.toBeInstanceOf(TaskNotFoundError);
    const err = await theirs.getTask({ id: mine.id, tenant: '' }).catch((e) => e);
    expect(err.statusCode).toBe(404);
    const list = await theirs.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined });
    expect(list.tasks.map((t) => t.id)).not.toContain(mine.id);
    // Not a UUID, or nobody's: the same answer.
    await expect(theirs.getTask({ id: 'not-a-task', tenant: '' })).rejects.toBeInstanceOf(TaskNotFoundError);
    // Continuing someone else's task is not found either.
    await expect(theirs.sendMessage(messageOf([{ text: 'more' }], { taskId: mine.id }))).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('a bad part is a clear A2A error the client surfaces', async () => {
    const file = await client.sendMessage(messageOf([{ url: 'https://example.com/a.pdf', mediaType: 'application/pdf' }])).catch((e) => e);
    expect(file).toBeInstanceOf(ContentTypeNotSupportedError);
    expect(file.message).toContain('text parts');
    const unknown = await client.sendMessage(skillMessage('no_such_skill', {})).catch((e) => e);
    expect(unknown).toBeInstanceOf(RequestMalformedError);
    expect(unknown.message).toContain("Unknown skill 'no_such_skill'");
    const noSkill = await client.sendMessage(messageOf([{ data: { arguments: {} } }])).catch((e) => e);
    expect(noSkill).toBeInstanceOf(RequestMalformedError);
    expect(noSkill.message).toContain('skill is missing');
    const badArgs = await client.sendMessage(skillMessage('compress_codebase', { files: 'not a list' })).catch((e) => e);
    expect(badArgs).toBeInstanceOf(RequestMalformedError);
    expect(badArgs.message).toContain('files');
    const mixed = await client.sendMessage(messageOf([{ text: 'x' }, { data: { skill: 'estimate_tokens', arguments: { text: 'x' } } }])).catch((e) => e);
    expect(mixed).toBeInstanceOf(RequestMalformedError);
    const badFidelity = await client.sendMessage(messageOf([{ text: 'x' }], { metadata: { fidelity: 'tiny' } })).catch((e) => e);
    expect(badFidelity).toBeInstanceOf(RequestMalformedError);
    expect(badFidelity.message).toContain('abstract, outline, balanced, detailed, raw');
    // Raw HTTP: the binding's error body (google.rpc.Status with an ErrorInfo reason) and a detail.
    const res = await server.request('POST', '/a2a/v1/message:send', { body: { message: { messageId: 'x', parts: [{ raw: 'AAAA' }] } } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', details: [{ reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: 'a2a-protocol.org' }] });
    expect(res.json.detail).toBeTruthy();
    const notJson = await server.request('POST', '/a2a/v1/message:send', { rawBody: '{nope', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.details[0].reason).toBe('INVALID_PARAMS');
    const wrongType = await server.request('POST', '/a2a/v1/message:send', { rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.json.error.details[0].reason).toBe('CONTENT_TYPE_NOT_SUPPORTED');
    const noKey = await server.request('POST', '/a2a/v1/message:send', { key: null, body: {} });
    expect(noKey.status).toBe(401);
  });

  it('a skill above the caller’s plan is a rejected task naming plan_required (the tool pipeline’s plan gate)', async () => {
    const free = await makeUser(server, 'free');
    const c = await a2aClient(server.url, free.key);
    const task = asTask(await c.sendMessage(skillMessage('compress_codebase', { files: codebase(2) })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(dataPart(task.status?.message?.parts).error).toBe('plan_required');
  });

  it('leaves /a2a/v1/tasks/claim and /tasks/complete to the federation (not taken for task ids; docs/federation.md)', async () => {
    for (const path of ['/a2a/v1/tasks/claim', '/a2a/v1/tasks/complete']) {
      const res = await server.request('POST', path, { body: {} });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ detail: 'invalid_request' });
    }
  });
});

describe(`A2A protocol over JSON-RPC (${DB_KIND})`, () => {
  let rpc: Client;
  beforeAll(async () => {
    rpc = await a2aClient(server.url, server.ownerKey, 'JSONRPC');
  });

  it('is the card’s JSONRPC interface; send, get, list, stream, and errors in JSON-RPC codes', async () => {
    expect(rpc.transport.protocolName).toBe('JSONRPC');
    const task = asTask(await rpc.sendMessage(textMessage(sampleDocument())));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textPart(task.artifacts[0]!.parts).length).toBeGreaterThan(0);
    expect((await rpc.getTask({ id: task.id, tenant: '' })).id).toBe(task.id);
    const list = await rpc.listTasks({ tenant: '', contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined });
    expect(list.tasks.map((t) => t.id)).toEqual([task.id]);
    const events = await collect(rpc.sendMessageStream(skillMessage('compress_codebase', { files: codebase(10) })));
    console.log(`[a2a] JSON-RPC SendStreamingMessage: ${events.length} events: ${events.map(kindOf).join(', ')}`);
    expect(kindOf(events[0]!)).toBe('task');
    expect((events.at(-1)!.payload as { value: any }).value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);

    await expect(rpc.getTask({ id: '00000000-0000-4000-8000-000000000000', tenant: '' })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(rpc.cancelTask({ id: task.id, tenant: '', metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
    const bad = await rpc.sendMessage(skillMessage('no_such_skill', {})).catch((e) => e);
    expect(bad).toBeInstanceOf(RequestMalformedError);
    expect(bad.message).toContain('Unknown skill');

    const raw = async (body: unknown) =>
      (await server.request('POST', '/a2a/v1/jsonrpc', { rawBody: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } })).json;
    expect((await raw('{oops')).error.code).toBe(-32700);
    expect((await raw({ jsonrpc: '2.0', id: 7, method: 'Nope' })).error).toMatchObject({ code: -32601 });
    expect((await raw({ jsonrpc: '2.0', id: 8, method: 'GetTask', params: { id: 'x' } })).error).toMatchObject({ code: -32001 });
    expect((await raw({ jsonrpc: '2.0', id: 9, method: 'SendMessage', params: { message: { messageId: 'm', parts: [{ url: 'https://x' }] } } })).error).toMatchObject({ code: -32005 });
  });
});
