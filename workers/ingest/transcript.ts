// Transcripts into timestamped segments: WebVTT and SRT through the maintained `subtitle` parser,
// speaker-labelled text ("[00:01:02] Alice: ...", "Alice (1:02): ...", "Alice: ...") by our own line rules.
import { parseSync, type NodeCue } from 'subtitle';
import { IngestInputError } from './errors.js';

export const TRANSCRIPT_FORMATS = ['vtt', 'srt', 'speaker_text'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];
export const MAX_SEGMENTS = 20_000;
/** Speaking rate used where the source has no times (about 150 words a minute). */
const WORDS_PER_SECOND = 2.5;
const MIN_SEGMENT_MS = 1000;

export interface Segment {
  ordinal: number;
  start_ms: number;
  end_ms: number;
  speaker: string | null;
  text: string;
}

export interface ParsedTranscript {
  format: TranscriptFormat;
  timing: 'source' | 'estimated';
  segments: Segment[];
  duration_ms: number;
  speakers: string[];
  /** The text the Knowledge Hub stores, chunks, embeds and hashes: one line per segment. */
  content: string;
}

export function detectFormat(raw: string): TranscriptFormat {
  const text = raw.replace(/^\uFEFF/, '').trimStart();
  if (/^WEBVTT(?:[ \t].*)?(?:\r?\n|$)/.test(text)) return 'vtt';
  if (/^\d+[ \t]*\r?\n[ \t]*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}[ \t]*-->/.test(text)) return 'srt';
  return 'speaker_text';
}

export function formatTimestamp(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const f = Math.floor(ms % 1000);
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(f).padStart(3, '0')}`;
}

const estimate = (text: string) => Math.max(MIN_SEGMENT_MS, Math.round((text.split(/\s+/).filter(Boolean).length / WORDS_PER_SECOND) * 1000));

/** "Alice:" / "DR. SMITH:" / "[Bob]" at the start of a cue or line: a speaker label (short, no sentence inside). */
const LABEL = /^(?:-\s*)?(?:\[([^\]\n]{1,40})\]|([\p{L}][\p{L}\p{N} .'_-]{0,38}[\p{L}\p{N}.]|[\p{L}])\s*:)\s+(?=\S)/u;

function splitSpeaker(text: string): { speaker: string | null; text: string } {
  const m = LABEL.exec(text);
  if (!m) return { speaker: null, text };
  const speaker = (m[1] ?? m[2] ?? '').trim();
  // "Note: the ..." style prose is not a speaker: at most four words.
  if (!speaker || speaker.split(/\s+/).length > 4 || /^https?$/i.test(speaker)) return { speaker: null, text };
  return { speaker, text: text.slice(m[0].length) };
}

function cueText(raw: string, format: 'vtt' | 'srt'): { speaker: string | null; text: string } {
  let speaker: string | null = null;
  let text = raw;
  if (format === 'vtt') {
    const voice = /<v(?:\.[^\s>]*)?\s+([^>]+)>/.exec(text);
    if (voice) speaker = voice[1]!.trim();
    text = text.replace(/<\d{2}:\d{2}(?::\d{2})?\.\d{3}>/g, '');
  }
  text = text.replace(/<\/?[a-z][^>]*>/gi, '').replace(/\{\\[^}]*\}/g, '');
  text = text.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&nbsp;/g, ' ');
  text = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).join(' ');
  if (!speaker) {
    const s = splitSpeaker(text);
    speaker = s.speaker;
    text = s.text;
  }
  return { speaker, text: text.trim() };
}

const TIMING_LINE = /^\s*(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3}\s*-->/;

/**
 * WebVTT blocks the parser does not take: NOTE, STYLE and REGION blocks go, and a cue identifier
 * that is not a number ("intro") is dropped (the parser only knows SRT-style numeric ids).
 */
function vttBlocks(text: string): string {
  const blocks = text.split(/\n{2,}/);
  return blocks
    .map((block, i) => {
      if (i === 0) return block;
      const lines = block.split('\n');
      if (/^(?:NOTE|STYLE|REGION)(?:\s|$)/.test(lines[0]!)) return null;
      if (lines.length > 1 && !TIMING_LINE.test(lines[0]!) && TIMING_LINE.test(lines[1]!)) return lines.slice(1).join('\n');
      return block;
    })
    .filter((b): b is string => b !== null)
    .join('\n\n');
}

function parseSubtitles(raw: string, format: 'vtt' | 'srt'): Segment[] {
  let nodes;
  try {
    // The parser expects \n line ends and a final blank line.
    const text = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').trim();
    nodes = parseSync(`${format === 'vtt' ? vttBlocks(text) : text}\n`);
  } catch (err) {
    throw new IngestInputError(`Malformed ${format === 'vtt' ? 'WebVTT' : 'SRT'}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const cues = nodes.filter((n): n is NodeCue => n.type === 'cue');
  if (cues.length > MAX_SEGMENTS) throw new IngestInputError(`Too many cues: ${cues.length} (at most ${MAX_SEGMENTS})`);
  const out: Segment[] = [];
  cues.forEach((c, i) => {
    const { start, end } = c.data;
    if (!Number.isFinite(start) || !Number.isFinite(end) || start < 0) throw new IngestInputError(`Cue ${i + 1} has an invalid timestamp`);
    if (end < start) throw new IngestInputError(`Cue ${i + 1} ends (${formatTimestamp(end)}) before it starts (${formatTimestamp(start)})`);
    const { speaker, text } = cueText(c.data.text, format);
    if (text) out.push({ ordinal: out.length, start_ms: start, end_ms: end, speaker, text });
  });
  return out;
}

/** "[01:02:03.5]", "(1:02)", "01:02:03 -" at the start of a line, or "Name (01:02):" / "Name [01:02]:". */
const LEAD_TIME = /^[[(]?((?:\d{1,2}:)?\d{1,2}:\d{2}(?:[.,]\d{1,3})?)[\])]?\s*(?:[-–—|]\s*)?/;
const NAME_TIME = /^([\p{L}][\p{L}\p{N} .'_-]{0,38}?)\s*[[(]((?:\d{1,2}:)?\d{1,2}:\d{2}(?:[.,]\d{1,3})?)[\])]\s*:?\s*/u;

function clockMs(value: string): number {
  const [clock, frac = ''] = value.split(/[.,]/);
  const parts = clock!.split(':').map(Number);
  while (parts.length < 3) parts.unshift(0);
  const [h, m, s] = parts as [number, number, number];
  if (m > 59 || s > 59) throw new IngestInputError(`Invalid timestamp '${value}'`);
  return ((h * 60 + m) * 60 + s) * 1000 + Number(frac.padEnd(3, '0').slice(0, 3) || 0);
}

function parseSpeakerText(raw: string): { segments: Segment[]; timed: boolean } {
  interface Draft { start: number | null; speaker: string | null; text: string }
  const drafts: Draft[] = [];
  let labelled = 0;
  for (const rawLine of raw.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    let line = rawLine.trim();
    if (!line) continue;
    let start: number | null = null;
    let speaker: string | null = null;
    const nt = NAME_TIME.exec(line);
    if (nt) {
      speaker = nt[1]!.trim();
      start = clockMs(nt[2]!);
      line = line.slice(nt[0].length);
    } else {
      const lt = LEAD_TIME.exec(line);
      if (lt && lt[0].length < line.length) {
        start = clockMs(lt[1]!);
        line = line.slice(lt[0].length);
      }
      const s = splitSpeaker(line);
      speaker = s.speaker;
      line = s.text;
    }
    if (start === null && speaker === null && drafts.length) {
      drafts[drafts.length - 1]!.text += ` ${line}`; // a continuation line
      continue;
    }
    if (start !== null || speaker !== null) labelled++;
    drafts.push({ start, speaker, text: line });
    if (drafts.length > MAX_SEGMENTS) throw new IngestInputError(`Too many segments (at most ${MAX_SEGMENTS})`);
  }
  if (!drafts.length) throw new IngestInputError('The transcript is empty');
  if (labelled === 0) {
    throw new IngestInputError('No speaker labels or timestamps found: give WebVTT, SRT, or lines such as "Alice: ..." or "[00:01:02] Alice: ..."');
  }
  const timed = drafts.some((d) => d.start !== null);
  const segments: Segment[] = [];
  let clock = 0;
  let lastExplicit = -1;
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i]!;
    if (d.start !== null) {
      if (d.start < lastExplicit) throw new IngestInputError(`Segment ${i + 1}: timestamp ${formatTimestamp(d.start)} goes back in time`);
      lastExplicit = d.start;
    }
    const start = d.start ?? clock;
    const next = drafts[i + 1]?.start ?? null;
    const end = next !== null && next >= start ? next : start + estimate(d.text);
    segments.push({ ordinal: i, start_ms: start, end_ms: end, speaker: d.speaker, text: d.text.trim() });
    clock = end;
  }
  return { segments, timed };
}

export function renderTranscript(segments: Segment[]): string {
  return segments.map((s) => `[${formatTimestamp(s.start_ms)} - ${formatTimestamp(s.end_ms)}] ${s.speaker ? `${s.speaker}: ` : ''}${s.text}`).join('\n');
}

export function parseTranscript(input: { text: string; format?: TranscriptFormat | 'auto' }): ParsedTranscript {
  if (!input.text.trim()) throw new IngestInputError('The transcript is empty');
  const format = !input.format || input.format === 'auto' ? detectFormat(input.text) : input.format;
  let segments: Segment[];
  let timing: 'source' | 'estimated' = 'source';
  if (format === 'speaker_text') {
    const r = parseSpeakerText(input.text);
    segments = r.segments;
    if (!r.timed) timing = 'estimated';
  } else {
    segments = parseSubtitles(input.text, format);
  }
  if (!segments.length) throw new IngestInputError('The transcript has no cues with text');
  const speakers = [...new Set(segments.map((s) => s.speaker).filter((s): s is string => !!s))];
  return {
    format,
    timing,
    segments,
    duration_ms: Math.max(...segments.map((s) => s.end_ms)),
    speakers,
    content: renderTranscript(segments),
  };
}
