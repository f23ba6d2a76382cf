// Image OCR with tesseract.js inside a pool worker. The English model comes from the installed
// @tesseract.js-data/eng package (LSTM, best_int) and nothing is cached to disk, so OCR never
// touches the network. One tesseract worker per pool thread, made on first use and ended when idle.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Tesseract from 'tesseract.js';

/** A tesseract worker unused this long is ended (it holds ~40 MB of model and WASM heap). */
const IDLE_MS = 60_000;

export class OcrTimeoutError extends Error {
  override name = 'OcrTimeoutError';
}

let current: Promise<Tesseract.Worker> | null = null;
let idle: NodeJS.Timeout | null = null;

/** Directory of the English model shipped by @tesseract.js-data/eng (a local path: read from disk, never fetched). */
export function englishLangPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

function worker(): Promise<Tesseract.Worker> {
  current ??= Tesseract.createWorker('eng', Tesseract.OEM.LSTM_ONLY, {
    langPath: englishLangPath(),
    cacheMethod: 'none',
    gzip: true,
    logger: () => undefined,
    // Without a handler a failed job also throws inside tesseract's message listener.
    errorHandler: () => undefined,
  }).catch((err) => {
    current = null;
    throw err;
  });
  return current;
}

async function end(): Promise<void> {
  const w = current;
  current = null;
  if (idle) clearTimeout(idle);
  idle = null;
  if (w) await w.then((x) => x.terminate()).catch(() => undefined);
}

export interface OcrOutput {
  text: string;
  /** Tesseract's mean word confidence, 0-100. */
  confidence: number;
  words: number;
}

/** Recognises the image's text; past timeoutMs the tesseract worker is ended and OcrTimeoutError thrown. */
export async function recognize(image: Uint8Array, timeoutMs: number): Promise<OcrOutput> {
  if (idle) clearTimeout(idle);
  const w = await worker();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OcrTimeoutError(`OCR ran past ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const r = await Promise.race([w.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength)), timeout]);
    const text = r.data.text.replace(/[ \t]+\n/g, '\n').trim();
    return { text, confidence: Math.round(r.data.confidence), words: text.split(/\s+/).filter(Boolean).length };
  } catch (err) {
    if (err instanceof OcrTimeoutError) await end();
    throw err;
  } finally {
    clearTimeout(timer);
    if (current) {
      idle = setTimeout(() => void end(), IDLE_MS);
      idle.unref();
    }
  }
}
