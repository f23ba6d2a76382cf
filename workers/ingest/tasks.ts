// Ingestion compute run in the Piscina pool: transcript parsing, PDF text layers, image OCR,
// near-duplicate detection, timeline ranking and token counts of versions.
import { bm25Scores } from '../shared/bm25.js';
import { countTokens } from '../shared/tokens.js';
import { terms } from '../text/terms.js';
import { IngestInputError } from './errors.js';
import { imageText, pdfText, sniff, type ImageText, type PdfText } from './media.js';
import { findDuplicates, type DuplicateInput } from './minhash.js';
import { parseTranscript, type TranscriptFormat } from './transcript.js';

export interface MediaInput {
  /** Raw bytes (structured-cloned into the worker). */
  bytes: Uint8Array;
  /** Refuse anything but this kind (the declared type); null: whatever the bytes are. */
  expect: 'pdf' | 'image' | null;
  ocrTimeoutMs: number;
}

export type MediaOutput = ({ kind: 'pdf' } & PdfText) | ({ kind: 'image' } & ImageText);

export const ingestTasks = {
  ingestParseTranscript: (input: { text: string; format?: TranscriptFormat | 'auto' }) => parseTranscript(input),

  ingestExtractMedia: async (input: MediaInput): Promise<MediaOutput> => {
    const sniffed = sniff(input.bytes);
    if (!sniffed) throw new IngestInputError('Unrecognised content: not a PDF or a PNG, JPEG, GIF, BMP, TIFF or WebP image');
    if (input.expect && input.expect !== sniffed.kind) {
      throw new IngestInputError(`The content is ${sniffed.kind === 'pdf' ? 'a PDF' : `a ${sniffed.format.toUpperCase()} image`}, not ${input.expect === 'pdf' ? 'a PDF' : 'an image'} as declared`);
    }
    if (sniffed.kind === 'pdf') return { kind: 'pdf', ...(await pdfText(input.bytes)) };
    return { kind: 'image', ...(await imageText(input.bytes, sniffed.format as ImageText['format'], input.ocrTimeoutMs)) };
  },

  ingestDuplicates: (input: DuplicateInput) => findDuplicates(input),

  /** BM25 of each text against the query; the best `limit` with a positive score, best first. */
  ingestRank: (input: { query: string; texts: string[]; limit: number }) => {
    const q = terms(input.query);
    const scores = bm25Scores(input.texts.map((t) => terms(t)), q);
    const order: number[] = [];
    for (let i = 0; i < scores.length; i++) if (scores[i]! > 0) order.push(i);
    order.sort((a, b) => scores[b]! - scores[a]! || a - b);
    return { hits: order.slice(0, input.limit).map((i) => ({ index: i, score: Math.round(scores[i]! * 10000) / 10000 })), query_terms: [...new Set(q)] };
  },

  ingestCountTokens: (input: { texts: string[] }) => ({ tokens: input.texts.map((t) => countTokens(t, 'o200k_base')) }),
};
