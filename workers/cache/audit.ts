// audit_prompt_cacheability: content that changes from one request to the next (timestamps, dates,
// UUIDs, request ids, nonces, long random numbers) ends every cached prefix where it appears. This
// finds each such span and its token position.
import type { TokenizerName } from '../shared/tokens.js';
import { tokenIndexAt } from './tokens.js';

export type VolatileKind = 'timestamp' | 'date' | 'time' | 'uuid' | 'request_id' | 'hex_id' | 'unix_epoch' | 'long_number';

// Ordered most specific first; a span claimed by one kind is not reported again by a later one.
const PATTERNS: { kind: VolatileKind; re: RegExp; why: string }[] = [
  { kind: 'timestamp', re: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b/g, why: 'a date and time changes every request' },
  { kind: 'timestamp', re: /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? \d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4} \d{2}:\d{2}(?::\d{2})?(?: ?(?:GMT|UTC|[+-]\d{4}))?/g, why: 'an HTTP-style date and time changes every request' },
  { kind: 'uuid', re: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, why: 'a UUID is usually new per request or session' },
  { kind: 'request_id', re: /\b(?:req|request|trace|span|session|sess|msg|run|call|chatcmpl|nonce|idempotency)[-_]?(?:id)?[-_:= ]+["']?(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{8,}/gi, why: 'a request, trace or session id differs per call' },
  { kind: 'date', re: /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b|\b(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2},? \d{4}\b/g, why: "today's date changes daily" },
  { kind: 'time', re: /\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g, why: 'a clock time changes every request' },
  { kind: 'unix_epoch', re: /\b1[6-9]\d{8}(?:\d{3})?\b/g, why: 'a Unix timestamp changes every second' },
  { kind: 'hex_id', re: /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{16,}\b/gi, why: 'a long hexadecimal id or hash is usually per request' },
  { kind: 'long_number', re: /\b\d{9,}\b/g, why: 'a long number (random seed, counter) changes per request' },
];

export interface VolatileSpan {
  kind: VolatileKind;
  text: string;
  char: number;
  length: number;
  token: number;
  why: string;
}

export interface AuditOutput {
  spans: VolatileSpan[];
  total_tokens: number;
  /** Spans found before truncation to `max`. */
  found: number;
}

export function auditPrompt({ text, tokenizer, max }: { text: string; tokenizer: TokenizerName; max: number }): AuditOutput {
  const taken: [number, number][] = [];
  const found: Omit<VolatileSpan, 'token'>[] = [];
  const overlaps = (s: number, e: number) => taken.some(([a, b]) => s < b && e > a);
  for (const { kind, re, why } of PATTERNS) {
    for (const m of text.matchAll(re)) {
      const s = m.index!;
      const e = s + m[0].length;
      if (overlaps(s, e)) continue;
      taken.push([s, e]);
      found.push({ kind, text: m[0].length > 80 ? `${m[0].slice(0, 77)}...` : m[0], char: s, length: m[0].length, why });
    }
  }
  found.sort((x, y) => x.char - y.char);
  const kept = found.slice(0, max);
  const { indexes, total } = tokenIndexAt(text, kept.map((f) => f.char), tokenizer);
  return { spans: kept.map((f, i) => ({ ...f, token: indexes[i]! })), total_tokens: total, found: found.length };
}
