// Streaming batch (Accept: application/x-ndjson): each document's result as soon as it finishes,
// then the summary; the JSON form is unchanged; a client that reads slowly or leaves holds the
// documents back instead of piling results up.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMetric } from '../helpers/metrics.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** Reads an NDJSON response line by line, with the time each line arrived. */
async function ndjson(body: unknown, accept = 'application/x-ndjson') {
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/batch-compress`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.ownerKey}`, 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });
  const lines: { at: number; value: any }[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      lines.push({ at: performance.now() - started, value: JSON.parse(buffered.slice(0, nl)) });
      buffered = buffered.slice(nl + 1);
    }
  }
  expect(buffered).toBe('');
  return { status: res.status, contentType: res.headers.get('content-type'), lines };
}

describe(`batch compress as NDJSON (${DB_KIND})`, () => {
  it('streams one line per document as it finishes, then the summary; results equal the JSON form', async () => {
    const doc = sampleDocument();
    // One large document and small ones: the small ones finish (and arrive) first.
    const big = Array.from({ length: 60 }, () => doc).join('\n\n');
    const documents = [
      { id: 'big', text: big, fidelity: 'balanced' },
      ...Array.from({ length: 6 }, (_, i) => ({ id: `s${i}`, text: `${doc.slice(0, 600)} Variant ${i}.`, fidelity: 'outline' })),
      { id: 'bad', text: doc, fidelity: 'nonsense' },
    ];
    const streamed = await ndjson({ documents });
    expect(streamed.status).toBe(200);
    expect(streamed.contentType).toBe('application/x-ndjson');
    const results = streamed.lines.slice(0, -1).map((l) => l.value);
    const summary = streamed.lines.at(-1)!.value.summary;
    expect(results.map((r) => r.index).sort((a, b) => a - b)).toEqual(documents.map((_, i) => i));
    expect(results[0].id).not.toBe('big'); // completion order, not input order
    expect(results.find((r) => r.id === 'bad').error).toContain("'nonsense'");
    expect(summary).toMatchObject({ documents: 8, succeeded: 7, failed: 1 });
    // Lines arrive over time, not all at the end.
    expect(streamed.lines[0]!.at).toBeLessThan(streamed.lines.at(-1)!.at);

    const json = await server.request('POST', '/v1/batch-compress', { body: { documents } });
    expect(json.status).toBe(200);
    expect(json.json.summary).toEqual(summary);
    const byIndex = new Map(results.map((r) => [r.index, r]));
    for (const r of json.json.results) {
      expect(byIndex.get(r.index).compressed_text).toBe(r.compressed_text);
    }
  });

  it('other Accept values get the JSON form; a bad body is still a 422 with a detail', async () => {
    const plain = await server.request('POST', '/v1/batch-compress', { body: { documents: [{ text: 'One sentence. Two sentences.' }] }, headers: { accept: 'application/json' } });
    expect(plain.headers.get('content-type')).toContain('application/json');
    expect(plain.json.summary.succeeded).toBe(1);
    const bad = await server.request('POST', '/v1/batch-compress', { body: { documents: [] }, headers: { accept: 'application/x-ndjson' } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['body', 'documents']);
  });

  it('a client that stops reading holds the batch back, and one that leaves stops it', async () => {
    const doc = sampleDocument();
    const documents = Array.from({ length: 50 }, (_, i) => ({ id: `d${i}`, text: `${doc} Copy ${i}.`, fidelity: 'balanced' }));
    const before = await batchEvents();
    const streamsEnded = () => appMetric(server.app.services, 'gc_http_requests_total', 'route="/v1/batch-compress"');
    const endedBefore = await streamsEnded();
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${server.url}/v1/batch-compress`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.ownerKey}`, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      });
      req.on('response', (res) => {
        // Read the first line, then leave.
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
      req.end(JSON.stringify({ documents }));
    });
    // Stopped: the stream has ended (its request is counted, so no document starts any more) and the
    // documents it had running are done (the pool is idle); their usage events are then drained.
    const { pool } = server.app.services;
    await waitFor('the stream to end and its running documents to finish', async () => (await streamsEnded()) > endedBefore && pool.stats().running === 0 && pool.stats().queue_size === 0);
    const after = await batchEvents();
    // At least the document whose line was read; at most those already running (4) and the few started before the disconnect was seen.
    expect(after - before).toBeGreaterThan(0);
    expect(after - before).toBeLessThan(20);
  });
});

async function batchEvents(): Promise<number> {
  await server.app.services.background.drain();
  const [row] = await server.app.services.db.query<{ n: number }>("select count(*)::int as n from usage_events where method = 'batch'");
  return row!.n;
}
