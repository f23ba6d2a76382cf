// Meaning-bearing features of a sentence: numbers and units, negation, modality, comparatives,
// identifiers and names, dates, warnings, error codes and limits.

const NUMBER_WORDS: Record<string, string> = {
  zero: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: '10',
  eleven: '11', twelve: '12', thirteen: '13', fourteen: '14', fifteen: '15', sixteen: '16', seventeen: '17', eighteen: '18',
  nineteen: '19', twenty: '20', thirty: '30', forty: '40', fifty: '50', sixty: '60', seventy: '70', eighty: '80', ninety: '90',
  hundred: '100', thousand: '1000', million: '1000000', billion: '1000000000', dozen: '12', once: '1', twice: '2', thrice: '3',
  single: '1', double: '2', triple: '3', half: '0.5',
};
const NUMBER_WORD_RE = new RegExp(`\\b(?:${Object.keys(NUMBER_WORDS).join('|')})\\b`, 'gi');

const UNIT_CANON: Record<string, string> = {
  ms: 'ms', millisecond: 'ms', milliseconds: 'ms', msec: 'ms',
  s: 's', sec: 's', secs: 's', second: 's', seconds: 's',
  m: 'min', min: 'min', mins: 'min', minute: 'min', minutes: 'min',
  h: 'h', hr: 'h', hrs: 'h', hour: 'h', hours: 'h',
  d: 'd', day: 'd', days: 'd', week: 'w', weeks: 'w', month: 'mo', months: 'mo', year: 'y', years: 'y',
  b: 'B', byte: 'B', bytes: 'B', kb: 'KB', kib: 'KB', mb: 'MB', mib: 'MB', gb: 'GB', gib: 'GB', tb: 'TB', tib: 'TB',
  '%': '%', percent: '%', px: 'px', em: 'em', rem: 'rem',
  kbps: 'kbps', mbps: 'mbps', gbps: 'gbps', hz: 'Hz', khz: 'kHz', mhz: 'MHz', ghz: 'GHz',
  x: 'x', times: 'x', k: 'k', m_: 'M',
  token: 'tok', tokens: 'tok', request: 'req', requests: 'req', rps: 'rps', qps: 'qps',
  char: 'char', chars: 'char', character: 'char', characters: 'char', line: 'line', lines: 'line',
  item: 'item', items: 'item', row: 'row', rows: 'row', retry: 'retry', retries: 'retry', attempt: 'retry', attempts: 'retry',
  connection: 'conn', connections: 'conn', thread: 'thread', threads: 'thread', worker: 'worker', workers: 'worker',
};

export interface NumberMention {
  /** Canonical digits ("1000" for "1,000" or "thousand"). */
  value: string;
  /** Canonical unit or '' when none follows. */
  unit: string;
  /** As written. */
  raw: string;
}

const NUMBER_RE = /(?<![\p{L}\p{N}_.])(\d+(?:[.,]\d+)*)(?:(\s?)(%|[A-Za-z]+))?/gu;

function canonNumber(s: string): string {
  let v = s.replace(/(\d),(?=\d{3}(?!\d))/g, '$1');
  if (/^\d+\.\d+$/.test(v)) v = v.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  return v;
}

export function numbers(text: string): NumberMention[] {
  const out: NumberMention[] = [];
  for (const m of text.matchAll(NUMBER_RE)) {
    let value = m[1]!;
    // A trailing sentence dot is not part of the number.
    value = value.replace(/[.,]$/, '');
    const unitWord = (m[3] ?? '').toLowerCase();
    const unit = UNIT_CANON[unitWord] ?? '';
    out.push({ value: canonNumber(value), unit, raw: unit ? m[0] : value });
  }
  for (const m of text.matchAll(NUMBER_WORD_RE)) {
    const after = /^\s+(\p{L}+|%)/u.exec(text.slice(m.index! + m[0].length));
    out.push({ value: NUMBER_WORDS[m[0].toLowerCase()]!, unit: UNIT_CANON[(after?.[1] ?? '').toLowerCase()] ?? '', raw: m[0] });
  }
  return out;
}

/** Does a `numberCanonical` text mention the canonical number (digits with digit boundaries)? */
export function mentionsNumber(canonText: string, value: string): boolean {
  const re = new RegExp(`(?<![\\d])${value.replace(/\./g, '\\.')}(?![\\d]|\\.\\d)`);
  return re.test(canonText);
}

/** Text with thousands separators removed and number words mapped to digits, for `mentionsNumber`. */
export function numberCanonical(text: string): string {
  return text
    .replace(/(\d),(?=\d{3}(?!\d))/g, '$1')
    // "2.50" -> "2.5", "3.0" -> "3" (plain decimals only: "2.0.0" stays a version)
    .replace(/(?<![\d.])(\d+\.\d*?)0+(?![\d]|\.\d)/g, (_, a: string) => (a.endsWith('.') ? a.slice(0, -1) : a))
    .replace(NUMBER_WORD_RE, (w) => ` ${NUMBER_WORDS[w.toLowerCase()]!} `);
}

// ---- negation ---------------------------------------------------------------------------------

const NEGATION = /\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without|unless)\b|\b\w+n['’]t\b/gi;

export interface Cue {
  word: string;
  index: number;
}

export function negations(text: string): Cue[] {
  const out: Cue[] = [];
  for (const m of text.matchAll(NEGATION)) out.push({ word: m[0].toLowerCase(), index: m.index! });
  return out;
}

// ---- modality -------------------------------------------------------------------------------------

export type ModalClass = 'obligation' | 'recommendation' | 'permission';
const MODALS: [RegExp, ModalClass][] = [
  [/\b(?:must|shall|required|mandatory|has to|have to|needs? to)\b/gi, 'obligation'],
  [/\b(?:should|recommended|ought to|preferably)\b/gi, 'recommendation'],
  [/\b(?:may|might|can|could|optional|optionally)\b/gi, 'permission'],
];

export function modals(text: string): Map<ModalClass, string> {
  const out = new Map<ModalClass, string>();
  for (const [re, cls] of MODALS) {
    const m = text.match(re);
    if (m) out.set(cls, m[0].toLowerCase());
  }
  return out;
}

// ---- comparatives and polar pairs --------------------------------------------------------------

const PAIRS: [string, string][] = [
  ['more', 'less'], ['more', 'fewer'], ['greater', 'less'], ['greater', 'smaller'], ['higher', 'lower'], ['larger', 'smaller'],
  ['bigger', 'smaller'], ['before', 'after'], ['above', 'below'], ['increase', 'decrease'], ['increases', 'decreases'],
  ['increased', 'decreased'], ['faster', 'slower'], ['earlier', 'later'], ['maximum', 'minimum'], ['max', 'min'],
  ['longer', 'shorter'], ['older', 'newer'], ['better', 'worse'], ['most', 'least'], ['highest', 'lowest'],
  ['largest', 'smallest'], ['first', 'last'], ['enable', 'disable'], ['enabled', 'disabled'], ['enables', 'disables'],
  ['true', 'false'], ['allow', 'deny'], ['allowed', 'denied'], ['include', 'exclude'], ['included', 'excluded'],
  ['synchronous', 'asynchronous'], ['sync', 'async'], ['start', 'end'], ['minimum', 'maximum'], ['upper', 'lower'],
  ['inclusive', 'exclusive'], ['success', 'failure'], ['succeeds', 'fails'], ['always', 'sometimes'], ['add', 'remove'],
  ['added', 'removed'], ['open', 'close'], ['input', 'output'], ['client', 'server'], ['read', 'write'],
];
const ANTONYMS = new Map<string, Set<string>>();
for (const [a, b] of PAIRS) {
  if (!ANTONYMS.has(a)) ANTONYMS.set(a, new Set());
  if (!ANTONYMS.has(b)) ANTONYMS.set(b, new Set());
  ANTONYMS.get(a)!.add(b);
  ANTONYMS.get(b)!.add(a);
}

/** Lower-cased words of the text that belong to a polar pair. */
export function polarWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[a-z]+/g)) if (ANTONYMS.has(m[0])) out.add(m[0]);
  return out;
}
export function antonymsOf(word: string): Set<string> {
  return ANTONYMS.get(word) ?? new Set();
}

// ---- identifiers, names, dates --------------------------------------------------------------------

export type IdentKind = 'code' | 'url' | 'path' | 'camel' | 'snake' | 'dotted' | 'flag' | 'const' | 'name' | 'date' | 'version';

export interface Identifier {
  text: string;
  kind: IdentKind;
  index: number;
}

const IDENT_PATTERNS: [RegExp, IdentKind][] = [
  [/`([^`\n]{1,80})`/g, 'code'],
  [/\b(?:https?|ftp|file):\/\/[^\s<>()`"'\]]*[^\s<>()`"'.,;:!?\]]/g, 'url'],
  [/(?<![\w/])(?:~|\.{1,2})?\/[\w.@-]+(?:\/[\w.@-]+)+\/?|(?<![\w.-])[\w.-]+\/[\w.-]+\/[\w./-]+|(?<![\w-])[\w-]+\.(?:js|mjs|cjs|ts|tsx|jsx|json|md|py|yml|yaml|toml|txt|sh|css|html|lock|cfg|ini|conf|env|rs|go|java|c|h|cpp)\b/g, 'path'],
  [/(?<![\w.])v?\d+\.\d+(?:\.\d+)+(?:-[\w.]+)?\b/g, 'version'],
  [/(?<![\w$])[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b/g, 'camel'],
  [/\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b/g, 'snake'],
  [/(?<![\w$.])[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?|\b[A-Za-z_$][\w$]*\(\)/g, 'dotted'],
  [/(?<![\w-])--?[a-zA-Z][\w-]*/g, 'flag'],
  [/\b(?=[A-Z0-9_]*[0-9_])[A-Z][A-Z0-9_]*\b|\b[A-Z]{2,}\b/g, 'const'],
  [/\b(?:Jan(?:uary)?|Feb(?:ruary)?|March|April|June|July|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b/g, 'date'],
  // Capitalised word inside a sentence (after a lower-case word or comma): a proper name.
  [/(?<=[a-z0-9,;:)]\s{1,3})[A-Z][a-z]{2,}(?:\s+[A-Z][a-z]{2,})*\b/g, 'name'],
];
const NOT_DOTTED = /^(?:e\.g|i\.e|a\.k\.a|etc|vs|[A-Za-z]\.[A-Za-z])$/i;
const COMMON_CAPS = new Set(['The', 'This', 'That', 'These', 'Those', 'For', 'If', 'When', 'And', 'But', 'Or', 'In', 'On', 'It', 'You', 'We', 'See', 'Note', 'Use', 'Also']);

/** Every identifier-like match with its offset (repeats included; a text may match several kinds). */
export function identifierMatches(text: string, kinds?: ReadonlySet<IdentKind>): Identifier[] {
  const out: Identifier[] = [];
  // Pieces of a URL (its host/path as a "path", "dotted" name or "name") are not identifiers of their own.
  const urls: [number, number][] = [];
  for (const [re, kind] of IDENT_PATTERNS) {
    if (kinds && !kinds.has(kind) && kind !== 'url') continue;
    for (const m of text.matchAll(re)) {
      if (kind === 'url') {
        urls.push([m.index!, m.index! + m[0].length]);
        if (kinds && !kinds.has(kind)) continue;
      } else if (kind !== 'code' && urls.length && insideAny(urls, m.index!)) continue;
      let t = kind === 'code' ? m[1]!.trim() : m[0];
      if (kind === 'dotted' && (NOT_DOTTED.test(t.replace(/\(\)$/, '')) || t.length < 4)) continue;
      if (kind === 'flag' && t.length < 3) continue; // "-v"-like short flags are too ambiguous in prose
      if (kind === 'name' && COMMON_CAPS.has(t)) continue;
      if (kind === 'path') t = t.replace(/[.,;:]$/, '');
      if (t) out.push({ text: t, kind, index: m.index! });
    }
  }
  return out;
}

function insideAny(spans: [number, number][], at: number): boolean {
  // URL spans arrive in order of position; binary search the last span starting at or before `at`.
  let lo = 0, hi = spans.length - 1, k = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (spans[mid]![0] <= at) [k, lo] = [mid, mid + 1];
    else hi = mid - 1;
  }
  return k >= 0 && at < spans[k]![1];
}

/** Distinct identifiers of a text (first match wins), in pattern order. */
export function identifiers(text: string): Identifier[] {
  const seen = new Set<string>();
  return identifierMatches(text).filter((i) => !seen.has(i.text) && (seen.add(i.text), true));
}

/** Identifier kinds whose change alters what a reader would type or look up. */
export const CODE_LIKE: ReadonlySet<IdentKind> = new Set(['code', 'url', 'path', 'camel', 'snake', 'dotted', 'flag', 'version']);

// ---- warnings, error codes, limits ----------------------------------------------------------------

// "do not" / "don't" are prohibitions unless they only waive a need ("you do not need to ...").
const WAIVER = String.raw`(?!\s+(?:need|have|worry|require|necessarily|care)\b)`;
const WARN_HIGH = new RegExp(
  String.raw`\b(?:warning|danger(?:ous)?|caution|never|must not|must never|shall not|do not${WAIVER}|don['’]t${WAIVER}|` +
    String.raw`does not support|is not supported|not supported|deprecated|unsafe|insecure|forbidden|prohibited|breaking change|` +
    String.raw`security (?:risk|issue|vulnerability)|data loss|irreversibl[ey])\b`,
  'i',
);
const WARN_MEDIUM = /\b(?:should not|shouldn['’]t|avoid|not recommended|important|beware|careful(?:ly)?|be aware|experimental|unstable|at your own risk|no longer|will be removed|obsolete|discouraged|vulnerab\w*|exploit\w*)\b/i;

export function warningLevel(text: string): 'high' | 'medium' | null {
  if (WARN_HIGH.test(text)) return 'high';
  if (WARN_MEDIUM.test(text)) return 'medium';
  return null;
}
export function warningCue(text: string): string | null {
  return (WARN_HIGH.exec(text) ?? WARN_MEDIUM.exec(text))?.[0] ?? null;
}

const ERROR_CODES: RegExp[] = [
  /\bERR_[A-Z0-9_]+\b/g,
  /\bE(?:CONN(?:REFUSED|RESET|ABORTED)|NOENT|ACCES|PERM|EXIST|PIPE|ADDRINUSE|ADDRNOTAVAIL|TIMEDOUT|NOTFOUND|MFILE|ISDIR|NOTDIR|NOTEMPTY|AGAIN|INVAL|HOSTUNREACH|NETUNREACH|AI_AGAIN)\b/g,
  /\b[A-Z]{1,4}-?\d{3,5}\b/g, // E1234, TS2322, CVE-style prefixes
  /\b(?:HTTP|status(?: code)?|error(?: code)?|response|returns?|responds? with)\s+(?:code\s+)?[45]\d\d\b/gi,
  /\b[45]\d\d\s+(?:Bad Request|Unauthorized|Forbidden|Not Found|Method Not Allowed|Conflict|Gone|Payload Too Large|Unprocessable|Too Many Requests|Internal Server Error|Not Implemented|Bad Gateway|Service Unavailable|Gateway Timeout)\b/g,
];

/** Error codes with offsets (HTTP statuses canonicalised to "HTTP 404"). */
export function errorCodeMatches(text: string): { code: string; index: number }[] {
  const out: { code: string; index: number }[] = [];
  ERROR_CODES.forEach((re, k) => {
    for (const m of text.matchAll(re)) out.push({ code: k >= 3 ? `HTTP ${/[45]\d\d/.exec(m[0])![0]}` : m[0], index: m.index! });
  });
  return out;
}

export function errorCodes(text: string): string[] {
  return [...new Set(errorCodeMatches(text).map((m) => m.code))];
}

/** Is the error code (as returned by errorCodes) present in the text? HTTP codes match on their digits. */
export function mentionsErrorCode(text: string, code: string): boolean {
  if (code.startsWith('HTTP ')) return new RegExp(`(?<!\\d)${code.slice(5)}(?!\\d)`).test(text);
  return text.includes(code);
}

const LIMIT = /\b(?:max(?:imum)?|min(?:imum)?|limit(?:s|ed)?|at most|at least|up to|no more than|no less than|exceed(?:s|ed|ing)?|timeout|time-?out|times? out|defaults? (?:to|is)|capped|threshold|quota|rate[- ]limit\w*|per (?:second|minute|hour|day|request))\b/i;

/** Numbers in a sentence that states a limit ("at most 100 connections", "timeout defaults to 30 s"). */
export function limits(text: string): NumberMention[] {
  if (!LIMIT.test(text)) return [];
  return numbers(text).filter((n) => n.value.length > 0 && !/^[01]$/.test(n.value));
}
