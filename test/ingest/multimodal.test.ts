import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MEDIA_BYTES } from '../../src/domain/ingest/multimodal.js';
import { connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant, settle } from '../kb/helpers.js';
import { fails, makePdf, OCR_PNG, ok } from './helpers.js';

let server: TestServer;
let a: Client;
let other: Client;
let free: Client;

beforeAll(async () => {
  server = await startTestServer();
  a = await connectMcp(server.url, (await makeTenant(server)).keyA);
  other = await connectMcp(server.url, (await makeTenant(server)).keyA);
  free = await connectMcp(server.url, (await makeTenant(server, 'free')).keyA);
});
afterAll(async () => {
  await Promise.allSettled([a, other, free].map((c) => c?.close()));
  await server?.close();
});

const PDF = makePdf([
  'Quarterly report: revenue grew twelve percent in the northern region.',
  'Appendix: zebra migration counts along the Mara river (a side note).',
]);

describe(`ingest_multimodal, multimodal_ingest, search_multimodal (${DB_KIND})`, () => {
  let pdf: any;
  let png: any;

  it('a PDF by its text layer, page by page', async () => {
    pdf = await ok(a, 'ingest_multimodal', { content_base64: PDF.toString('base64'), name: 'Q3 report', media_type: 'application/pdf' });
    expect(pdf).toMatchObject({ kind: 'pdf', media_type: 'application/pdf', total_pages: 2, pages_with_text: 2, bytes: PDF.length, version_number: 1, status: 'pending' });
    expect(pdf.preview).toMatch(/revenue grew twelve percent/);
    const item = await ok(a, 'gc_kb_get', { item_id: pdf.item_id });
    expect(item).toMatchObject({ type: 'pdf', name: 'Q3 report', source: 'upload' });
    expect(item.content).toBe('# Q3 report\n\n## Page 1\n\nQuarterly report: revenue grew twelve percent in the northern region.\n\n## Page 2\n\nAppendix: zebra migration counts along the Mara river (a side note).');
    expect(item.metadata.media).toMatchObject({ kind: 'pdf', total_pages: 2, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('an image by OCR (the English model that ships with the package, nothing downloaded)', async () => {
    const started = performance.now();
    png = await ok(a, 'multimodal_ingest', { content_base64: `data:image/png;base64,${OCR_PNG.toString('base64')}`, name: 'Invoice scan' });
    const ms = performance.now() - started;
    expect(png).toMatchObject({ kind: 'image', media_type: 'image/png', width: 560, height: 160 });
    expect(png.preview).toMatch(/INVOICE/);
    expect(png.preview).toMatch(/ORCHID/);
    expect(png.preview).toMatch(/4521/);
    expect(png.preview).toMatch(/Harbour freight/i);
    expect(png.ocr_confidence).toBeGreaterThan(60);
    console.log(`OCR ingest of a 560x160 PNG: ${ms.toFixed(0)} ms (first call, includes loading the model)`);
  });

  it('search_multimodal finds text in PDFs (with its page) and images, nothing else', async () => {
    await ok(a, 'gc_kb_ingest', { name: 'Plain note', content: 'Zebra crossings and harbour freight schedules for the northern region.' });
    await settle(server);
    const zebra = await ok(a, 'search_multimodal', { query: 'zebra migration Mara river' });
    expect(zebra.results[0]).toMatchObject({ item_id: pdf.item_id, kind: 'pdf', media_type: 'application/pdf' });
    expect(zebra.results[0].pages).toContain(2);
    expect(zebra.results.every((r: any) => r.kind === 'pdf' || r.kind === 'image')).toBe(true);
    const invoice = await ok(a, 'search_multimodal', { query: 'orchid invoice harbour freight' });
    expect(invoice.results[0]).toMatchObject({ item_id: png.item_id, kind: 'image', pages: [] });
    expect(invoice.results[0].ocr_confidence).toBeGreaterThan(60);
    const onlyPdf = await ok(a, 'search_multimodal', { query: 'orchid invoice harbour freight', kinds: ['pdf'] });
    expect(onlyPdf.results.some((r: any) => r.item_id === png.item_id)).toBe(false);
    // Another user's files are invisible.
    expect((await ok(other, 'search_multimodal', { query: 'zebra migration' })).results).toEqual([]);
    expect((await fails(other, 'gc_kb_get', { item_id: pdf.item_id })).error).toBe('not_found');
  });

  it('corrupt, mismatched, unsupported and oversize input are clear errors, and the pool keeps working', async () => {
    const garbage = await fails(a, 'ingest_multimodal', { content_base64: Buffer.from('this is not a file at all').toString('base64') });
    expect(garbage.detail).toMatch(/Unrecognised content/);
    const brokenPdf = await fails(a, 'ingest_multimodal', { content_base64: Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage').toString('base64') });
    expect(brokenPdf).toMatchObject({ error: 'invalid_request', detail: expect.stringMatching(/Corrupt or unreadable PDF|Corrupt PDF/) });
    const truncatedPdf = await fails(a, 'ingest_multimodal', { content_base64: PDF.subarray(0, 200).toString('base64') });
    expect(truncatedPdf.detail).toMatch(/PDF/);
    const truncatedPng = await fails(a, 'ingest_multimodal', { content_base64: OCR_PNG.subarray(0, 300).toString('base64') });
    expect(truncatedPng.detail).toMatch(/Corrupt or unreadable PNG/);
    const badHeader = Buffer.from(OCR_PNG);
    badHeader.write('XXXX', 12, 'latin1');
    expect((await fails(a, 'ingest_multimodal', { content_base64: badHeader.toString('base64') })).detail).toMatch(/Corrupt PNG/);
    const mismatch = await fails(a, 'ingest_multimodal', { content_base64: PDF.toString('base64'), media_type: 'image/png' });
    expect(mismatch.detail).toMatch(/is a PDF, not an image/);
    expect((await fails(a, 'ingest_multimodal', { content_base64: PDF.toString('base64'), media_type: 'text/html' })).detail).toMatch(/Unsupported media_type/);
    expect((await fails(a, 'ingest_multimodal', { content_base64: 'not base64!!' })).detail).toMatch(/not valid base64/);
    const noText = await fails(a, 'ingest_multimodal', { content_base64: makePdf(['']).toString('base64') });
    expect(noText.detail).toMatch(/no text layer/);
    const oversize = await fails(a, 'ingest_multimodal', { content_base64: 'A'.repeat(Math.ceil((MAX_MEDIA_BYTES + 4096) / 3) * 4) });
    expect(oversize.error).toBe('validation_error');
    expect(JSON.stringify(oversize)).toMatch(/exceeds 4194304 bytes/);
    // After all that, a good file still goes through.
    expect((await ok(a, 'ingest_multimodal', { content_base64: makePdf(['Still working after bad input.']).toString('base64') })).kind).toBe('pdf');
  });

  it('plan gate and validation', async () => {
    for (const tool of ['ingest_multimodal', 'multimodal_ingest', 'search_multimodal']) expect((await fails(free, tool, {})).error, tool).toBe('plan_required');
    expect((await fails(a, 'search_multimodal', { query: '' })).error).toBe('validation_error');
    await settle(server);
  });
});
