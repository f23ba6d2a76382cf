// OCR as the pool worker runs it (workers/ingest/ocr.ts), without the server: the model is read
// from the installed package, a run past its time limit ends the tesseract worker, the next starts afresh.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { englishLangPath, OcrTimeoutError, recognize } from '../../workers/ingest/ocr.js';
import { imageText } from '../../workers/ingest/media.js';
import { OCR_PNG } from './helpers.js';

const before = new Set(readdirSync(process.cwd()));
afterAll(() => {
  // cacheMethod 'none': tesseract wrote no eng.traineddata cache next to us.
  expect(readdirSync(process.cwd()).filter((f) => !before.has(f))).toEqual([]);
});

describe('OCR in a worker', () => {
  it('reads the model from @tesseract.js-data/eng on disk', () => {
    expect(existsSync(join(englishLangPath(), 'eng.traineddata.gz'))).toBe(true);
  });

  it('recognises the fixture, times out cleanly, and recovers', async () => {
    const r = await recognize(OCR_PNG, 30_000);
    expect(r.text).toMatch(/INVOICE ORCHID 4521/);
    expect(r.confidence).toBeGreaterThan(60);
    await expect(recognize(OCR_PNG, 1)).rejects.toBeInstanceOf(OcrTimeoutError);
    const again = await imageText(OCR_PNG, 'png', 30_000);
    expect(again.text).toMatch(/Harbour freight/);
  }, 60_000);

  it('refuses oversized images before decoding them', async () => {
    const huge = Buffer.from(OCR_PNG);
    huge.writeUInt32BE(100_000, 16);
    huge.writeUInt32BE(100_000, 20);
    await expect(imageText(huge, 'png', 30_000)).rejects.toThrow(/at most 25,000,000 pixels/);
  });
});
