// Adaptive memory (AFM): importance of a message (CRITICAL, RELEVANT, TRIVIAL, with the reason) and
// packing a conversation into a token budget, each message FULL, COMPRESSED or PLACEHOLDER.
// Allocation order: the CRITICAL messages (held, compressed, then FULL, newest first), then the others'
// placeholders newest first, then upgrades (RELEVANT compressed, RELEVANT full, TRIVIAL compressed)
// newest first. So CRITICAL messages stay FULL whenever the budget holds the CRITICAL set in full.
import { countTokens } from '../shared/tokens.js';

export type Importance = 'CRITICAL' | 'RELEVANT' | 'TRIVIAL';
export type Form = 'FULL' | 'COMPRESSED' | 'PLACEHOLDER';

const CRITICAL_WORDS = /\b(must|must not|never|always|required|requirement|decided|decision|deadline|constraint|do not|don't|security|password|api key|breaking|blocker|critical|important|remember)\b/i;
const TRIVIAL_TEXT = /^(ok(ay)?|k|thanks?( you)?|thx|sure|great|cool|nice|got it|yes|no|yep|nope|hi|hello|hey|bye|sounds good|perfect|done|lol|:\)|👍)[.! ]*$/i;

/** Importance by rules when the caller gives none; the reason names the rule. */
export function classify(role: string, content: string): { importance: Importance; reason: string } {
  const text = content.trim();
  if (role === 'system') return { importance: 'CRITICAL', reason: 'system message' };
  const m = CRITICAL_WORDS.exec(text);
  if (m) return { importance: 'CRITICAL', reason: `states a requirement or decision ("${m[0].toLowerCase()}")` };
  if (TRIVIAL_TEXT.test(text)) return { importance: 'TRIVIAL', reason: 'acknowledgement or greeting' };
  if (text.split(/\s+/).length < 4) return { importance: 'TRIVIAL', reason: 'fewer than four words' };
  return { importance: 'RELEVANT', reason: 'conversation content' };
}

export interface PackMessage {
  seq: number;
  role: string;
  importance: Importance;
  content: string;
  /** Tokens of the content alone (stored when the message was added). */
  tokens: number;
}

function header(m: PackMessage): string {
  return `[#${m.seq} ${m.role}]`;
}

function compressed(m: PackMessage): string {
  const t = m.content.replace(/\s+/g, ' ').trim();
  const sentence = /^.*?[.!?](\s|$)/.exec(t)?.[0]?.trim() ?? t;
  const cut = sentence.length > 200 ? `${sentence.slice(0, 197)}...` : sentence;
  return `[#${m.seq} ${m.role} ~] ${cut}${cut.length < t.length && !cut.endsWith('...') ? ' ...' : ''}`;
}

function placeholder(m: PackMessage): string {
  return `[#${m.seq} ${m.role}: ${m.importance} message, ${m.tokens} tokens omitted]`;
}

function full(m: PackMessage): string {
  return `${header(m)} ${m.content}`;
}

export interface PackResult {
  context: string;
  tokens: number;
  items: { seq: number; importance: Importance; form: Form; tokens: number }[];
  dropped: number[];
  /** CRITICAL messages not in the context at all (only when even their placeholders do not fit). */
  dropped_critical: number;
}

export interface Prepared {
  messages: PackMessage[];
  cost: Record<Form, Float64Array>;
  texts: { COMPRESSED: string[]; PLACEHOLDER: string[] };
  criticalFull: number;
}

/** Each message's forms and their costs (a line and its newline), computed once per conversation version. */
export function prepare(messages: PackMessage[]): Prepared {
  const n = messages.length;
  const cost = { FULL: new Float64Array(n), COMPRESSED: new Float64Array(n), PLACEHOLDER: new Float64Array(n) };
  const texts = { COMPRESSED: new Array<string>(n), PLACEHOLDER: new Array<string>(n) };
  let criticalFull = 0;
  messages.forEach((m, i) => {
    // The header and the content are counted apart (the content's count is stored).
    cost.FULL[i] = m.tokens + countTokens(header(m)) + 2;
    if (m.importance === 'CRITICAL') criticalFull += cost.FULL[i]!;
    texts.COMPRESSED[i] = compressed(m);
    cost.COMPRESSED[i] = Math.min(cost.FULL[i]!, countTokens(texts.COMPRESSED[i]!) + 1);
    texts.PLACEHOLDER[i] = placeholder(m);
    cost.PLACEHOLDER[i] = Math.min(cost.COMPRESSED[i]!, countTokens(texts.PLACEHOLDER[i]!) + 1);
  });
  return { messages, cost, texts, criticalFull };
}

export function pack(prepared: Prepared, budget: number): PackResult {
  const { messages, cost, texts } = prepared;
  const n = messages.length;
  const form: (Form | null)[] = new Array(n).fill(null);
  let used = 0;
  const costOf = (i: number) => (form[i] ? cost[form[i]!][i]! : 0);
  /** Moves message i to form f when the difference fits. */
  const tryForm = (i: number, f: Form): boolean => {
    const delta = cost[f][i]! - costOf(i);
    if (used + delta > budget) return false;
    used += delta;
    form[i] = f;
    return true;
  };
  const newestFirst = (imp: Importance) => messages.map((m, i) => (m.importance === imp ? i : -1)).filter((i) => i >= 0).reverse();
  const critical = newestFirst('CRITICAL');
  const relevant = newestFirst('RELEVANT');
  const trivial = newestFirst('TRIVIAL');
  // CRITICAL first: each held (placeholder), then compressed, then FULL, newest first. Every form costs
  // at most FULL, so when the budget holds the CRITICAL set in full every step fits and all end FULL;
  // below that the oldest stay compressed or placeheld rather than dropped.
  for (const i of critical) tryForm(i, 'PLACEHOLDER');
  for (const i of critical) if (form[i]) tryForm(i, 'COMPRESSED');
  for (const i of critical) if (form[i]) tryForm(i, 'FULL');
  for (const i of [...relevant, ...trivial]) tryForm(i, 'PLACEHOLDER');
  for (const i of relevant) if (form[i]) tryForm(i, 'COMPRESSED');
  for (const i of relevant) if (form[i]) tryForm(i, 'FULL');
  for (const i of trivial) if (form[i]) tryForm(i, 'COMPRESSED');
  for (const i of trivial) if (form[i]) tryForm(i, 'FULL');
  const render = () =>
    messages
      .map((m, i) => (form[i] === 'FULL' ? full(m) : form[i] ? texts[form[i] as 'COMPRESSED' | 'PLACEHOLDER'][i]! : null))
      .filter((l): l is string => l !== null)
      .join('\n');
  let context = render();
  let tokens = countTokens(context);
  // Pieces were counted apart; when the whole is over, take from the least important, oldest first.
  const demoteOrder = [...[...trivial].reverse(), ...[...relevant].reverse(), ...[...critical].reverse()];
  while (tokens > budget) {
    const i = demoteOrder.find((j) => form[j] !== null);
    if (i === undefined) break;
    const f = form[i]!;
    form[i] = f === 'FULL' ? 'COMPRESSED' : f === 'COMPRESSED' ? 'PLACEHOLDER' : null;
    context = render();
    tokens = context ? countTokens(context) : 0;
  }
  const items = messages
    .map((m, i) => ({ seq: m.seq, importance: m.importance, form: form[i]!, tokens: form[i] ? cost[form[i]!][i]! : 0 }))
    .filter((x) => x.form !== null);
  return { context, tokens, items, dropped: messages.filter((_, i) => form[i] === null).map((m) => m.seq),
    dropped_critical: messages.filter((m, i) => form[i] === null && m.importance === 'CRITICAL').length,
  };
}
