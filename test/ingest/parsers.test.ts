// The pure parts run in the pool, tested directly: transcript parsing, media sniffing, MinHash.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IngestInputError } from '../../workers/ingest/errors.js';
import { detectFormat, parseTranscript } from '../../workers/ingest/transcript.js';
import { imageSize, pdfText, sniff } from '../../workers/ingest/media.js';
import { findDuplicates, jaccard, shingles } from '../../workers/ingest/minhash.js';
import { makePdf, OCR_PNG } from './helpers.js';

const VTT = `WEBVTT

NOTE recorded in the lab

intro
00:00:01.000 --> 00:00:04.500
<v Alice>Welcome to the <b>quarterly</b> review.

00:00:05.000 --> 00:00:09.000
<v.loud Bob>Revenue grew twelve percent.
`;

const SRT = `1
00:00:01,000 --> 00:00:03,000
ALICE: First line
continues here

2
00:00:03,500 --> 00:00:06,000
No speaker on this one.
`;

describe('transcript parsing', () => {
  it('WebVTT: voices become speakers, tags are stripped, times in ms', () => {
    const t = parseTranscript({ text: VTT });
    expect(t.format).toBe('vtt');
    expect(t.segments).toEqual([
      { ordinal: 0, start_ms: 1000, end_ms: 4500, speaker: 'Alice', text: 'Welcome to the quarterly review.' },
      { ordinal: 1, start_ms: 5000, end_ms: 9000, speaker: 'Bob', text: 'Revenue grew twelve percent.' },
    ]);
    expect(t.duration_ms).toBe(9000);
    expect(t.speakers).toEqual(['Alice', 'Bob']);
    expect(t.content).toBe('[00:00:01.000 - 00:00:04.500] Alice: Welcome to the quarterly review.\n[00:00:05.000 - 00:00:09.000] Bob: Revenue grew twelve percent.');
  });

  it('SRT: "NAME:" prefixes are speakers, multi-line cues join', () => {
    const t = parseTranscript({ text: SRT.replace(/\n/g, '\r\n') });
    expect(t.format).toBe('srt');
    expect(t.segments.map((s) => [s.start_ms, s.end_ms, s.speaker, s.text])).toEqual([
      [1000, 3000, 'ALICE', 'First line continues here'],
      [3500, 6000, null, 'No speaker on this one.'],
    ]);
  });

  it('speaker-labelled text with and without timestamps', () => {
    const timed = parseTranscript({ text: '[00:00:10] Alice: Hello everyone.\nmore from Alice\n(00:01:02.5) Bob: Thanks.\nCarol [01:30]: Bye.' });
    expect(timed.format).toBe('speaker_text');
    expect(timed.timing).toBe('source');
    expect(timed.segments.map((s) => [s.start_ms, s.end_ms, s.speaker, s.text])).toEqual([
      [10_000, 62_500, 'Alice', 'Hello everyone. more from Alice'],
      [62_500, 90_000, 'Bob', 'Thanks.'],
      [90_000, 91_000, 'Carol', 'Bye.'],
    ]);
    const untimed = parseTranscript({ text: 'Alice: one two three four five.\nBob: six seven eight nine ten eleven twelve thirteen fourteen fifteen.' });
    expect(untimed.timing).toBe('estimated');
    expect(untimed.segments[0]).toMatchObject({ start_ms: 0, end_ms: 2000, speaker: 'Alice' });
    expect(untimed.segments[1]).toMatchObject({ start_ms: 2000, end_ms: 6000, speaker: 'Bob' });
  });

  it('refuses malformed input with a reason', () => {
    expect(() => parseTranscript({ text: 'WEBVTT\n\n00:00:01.000 --> 00:00:0x.000\nbad\n' })).toThrow(/Malformed WebVTT: expected timestamp/);
    expect(() => parseTranscript({ text: '1\n00:00:05,000 --> 00:00:01,000\nbackwards\n' })).toThrow(/Cue 1 ends .* before it starts/);
    expect(() => parseTranscript({ text: 'just some prose without any labels at all' })).toThrow(/No speaker labels or timestamps/);
    expect(() => parseTranscript({ text: '[00:02:00] A: later\n[00:01:00] B: earlier' })).toThrow(/goes back in time/);
    expect(() => parseTranscript({ text: '[00:99:00] A: bad minute' })).toThrow(/Invalid timestamp/);
    expect(() => parseTranscript({ text: 'WEBVTT\n' })).toThrow(/no cues/);
    expect(() => parseTranscript({ text: 'garbage', format: 'srt' })).toThrow(/Malformed SRT/);
    expect(detectFormat('\uFEFFWEBVTT\n')).toBe('vtt');
  });
});

describe('media sniffing', () => {
  it('knows PDFs and PNGs by their bytes, and reads PNG sizes', () => {
    expect(sniff(makePdf(['x']))).toEqual({ kind: 'pdf', format: 'pdf' });
    expect(sniff(OCR_PNG)).toEqual({ kind: 'image', format: 'png' });
    expect(imageSize(OCR_PNG, 'png')).toEqual({ width: 560, height: 160 });
    expect(sniff(Buffer.from('hello world'))).toBeNull();
  });
});

describe('MinHash near-duplicates', () => {
  const base = 'The retry policy uses exponential back-off with full jitter and gives up after five attempts, logging each failure with its status code.';
  it('clusters near-duplicates, keeps different texts apart, reports exact Jaccard', () => {
    const near = base.replace('five attempts', 'six attempts');
    const other = 'Tomatoes want loose, well-drained soil rich in compost and deep watering twice a week in summer.';
    const r = findDuplicates({ docs: [{ id: 'a', text: base }, { id: 'b', text: near }, { id: 'c', text: other }, { id: 'd', text: base }], threshold: 0.7, shingleSize: 3 });
    expect(r.clusters).toHaveLength(1);
    expect(new Set(r.clusters[0]!.ids)).toEqual(new Set(['a', 'b', 'd']));
    const ad = r.clusters[0]!.pairs.find((p) => [p.a, p.b].sort().join() === 'a,d')!;
    expect(ad.similarity).toBe(1);
    const ab = r.clusters[0]!.pairs.find((p) => [p.a, p.b].sort().join() === 'a,b')!;
    expect(ab.similarity).toBeCloseTo(jaccard(shingles(base, 3), shingles(near, 3)), 4);
    expect(ab.similarity).toBeLessThan(1);
    expect(Math.abs(ab.estimate - ab.similarity)).toBeLessThan(0.2);
    // A threshold above the pair's similarity separates b.
    const strict = findDuplicates({ docs: [{ id: 'a', text: base }, { id: 'b', text: near }], threshold: Math.min(1, ab.similarity + 0.01), shingleSize: 3 });
    expect(strict.clusters).toHaveLength(0);
  });
});

describe('hostile input: a clear IngestInputError or a result, nothing else', () => {
  const mutate = (text: string) =>
    fc.tuple(fc.nat(text.length), fc.nat(40), fc.string({ maxLength: 30 })).map(([at, cut, insert]) => text.slice(0, at) + insert + text.slice(at + cut));

  it('transcripts: random and mutated VTT, SRT and speaker text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 400 }), mutate(VTT), mutate(SRT), mutate('[00:00:10] Alice: Hello.\nBob: Hi.')), fc.constantFrom('auto', 'vtt', 'srt', 'speaker_text') as fc.Arbitrary<'auto'>, (text, format) => {
        try {
          const t = parseTranscript({ text, format });
          for (const s of t.segments) expect(s.end_ms).toBeGreaterThanOrEqual(s.start_ms);
        } catch (err) {
          expect(err).toBeInstanceOf(IngestInputError);
        }
      }),
      { numRuns: 600, seed: 20 },
    );
  });

  it('PDFs: truncated and mutated files are refused as corrupt, never hang', async () => {
    const good = makePdf(['Some text on a page.', 'Another page.']);
    await fc.assert(
      fc.asyncProperty(fc.nat(good.length - 1), fc.uint8Array({ minLength: 1, maxLength: 16 }), fc.boolean(), async (at, junk, truncate) => {
        const bytes = truncate ? good.subarray(0, Math.max(8, at)) : Buffer.concat([good.subarray(0, at), junk, good.subarray(at + junk.length)]);
        try {
          const r = await pdfText(new Uint8Array(bytes));
          expect([0, 1, 2], 'no more pages than the file had').toContain(r.total_pages);
        } catch (err) {
          expect(err).toBeInstanceOf(IngestInputError);
        }
      }),
      { numRuns: 60, seed: 21 },
    );
  }, 60_000);
});
