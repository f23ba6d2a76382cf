// Media into text in the pool: PDFs by their text layer (unpdf / pdf.js), images by OCR.
import { IngestInputError } from './errors.js';
import { OcrTimeoutError, recognize } from './ocr.js';

export const MAX_PDF_PAGES = 500;
/** Images larger than this are refused before decoding (memory: ~4 bytes a pixel, several copies). */
export const MAX_IMAGE_PIXELS = 25_000_000;

export type MediaKind = 'pdf' | 'image';
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'bmp' | 'tiff' | 'webp';

const startsWith = (b: Uint8Array, sig: number[], at = 0) => sig.every((v, i) => b[at + i] === v);
const ascii = (b: Uint8Array, s: string, at = 0) => startsWith(b, [...s].map((c) => c.charCodeAt(0)), at);

/** What the bytes are, by their signature (the declared media type is only a hint). */
export function sniff(b: Uint8Array): { kind: MediaKind; format: 'pdf' | ImageFormat } | null {
  // A PDF header may follow up to 1 KB of junk.
  const head = Buffer.from(b.subarray(0, 1024)).toString('latin1');
  if (head.includes('%PDF-')) return { kind: 'pdf', format: 'pdf' };
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { kind: 'image', format: 'png' };
  if (startsWith(b, [0xff, 0xd8, 0xff])) return { kind: 'image', format: 'jpeg' };
  if (ascii(b, 'GIF87a') || ascii(b, 'GIF89a')) return { kind: 'image', format: 'gif' };
  if (ascii(b, 'BM')) return { kind: 'image', format: 'bmp' };
  if (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) return { kind: 'image', format: 'tiff' };
  if (ascii(b, 'RIFF') && ascii(b, 'WEBP', 8)) return { kind: 'image', format: 'webp' };
  return null;
}

/** Width and height from a PNG or JPEG header (null for other formats or a header that says nothing). */
export function imageSize(b: Uint8Array, format: ImageFormat): { width: number; height: number } | null {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (format === 'png') {
    if (b.length < 24 || !ascii(b, 'IHDR', 12)) throw new IngestInputError('Corrupt PNG: no IHDR header');
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (format === 'jpeg') {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return null;
      const marker = b[i + 1]!;
      const len = view.getUint16(i + 2);
      // SOF0-SOF15 except DHT (c4), JPG (c8) and DAC (cc) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: view.getUint16(i + 7), height: view.getUint16(i + 5) };
      }
      i += 2 + len;
    }
    return null;
  }
  return null;
}

export interface PdfText {
  pages: string[];
  total_pages: number;
}

export async function pdfText(bytes: Uint8Array): Promise<PdfText> {
  const { getDocumentProxy, extractText } = await import('unpdf');
  let pdf;
  try {
    // pdf.js takes ownership of (and detaches) the buffer it is given: hand it a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, isEvalSupported: false, stopAtErrors: false });
  } catch (err) {
    throw new IngestInputError(`Corrupt or unreadable PDF: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    if (pdf.numPages > MAX_PDF_PAGES) throw new IngestInputError(`The PDF has ${pdf.numPages} pages (at most ${MAX_PDF_PAGES})`);
    let pages: string[];
    try {
      pages = (await extractText(pdf, { mergePages: false })).text;
    } catch (err) {
      throw new IngestInputError(`Corrupt PDF: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { pages: pages.map((p) => p.replace(/[ \t]+/g, ' ').replace(/\n{3,}/g, '\n\n').trim()), total_pages: pdf.numPages };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

export interface ImageText {
  format: ImageFormat;
  width: number | null;
  height: number | null;
  text: string;
  confidence: number;
  words: number;
}

export async function imageText(bytes: Uint8Array, format: ImageFormat, timeoutMs: number): Promise<ImageText> {
  const size = imageSize(bytes, format);
  if (size && (size.width === 0 || size.height === 0)) throw new IngestInputError(`Corrupt ${format.toUpperCase()}: zero width or height`);
  if (size && size.width * size.height > MAX_IMAGE_PIXELS) {
    throw new IngestInputError(`The image is ${size.width}x${size.height} pixels (at most ${MAX_IMAGE_PIXELS.toLocaleString('en')} pixels)`);
  }
  try {
    const r = await recognize(bytes, timeoutMs);
    return { format, width: size?.width ?? null, height: size?.height ?? null, ...r };
  } catch (err) {
    if (err instanceof OcrTimeoutError) throw err;
    throw new IngestInputError(`Corrupt or unreadable ${format.toUpperCase()} image: ${err instanceof Error ? err.message : String(err)}`);
  }
}
