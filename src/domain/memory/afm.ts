// Adaptive memory (AFM): a conversation's messages with their importance, packed into a budget by the
// pool (workers/memory/afm.ts). A conversation is scoped like memories (user and project); its id
// defaults to the MCP session's.
import { createHash } from 'node:crypto';
import type { Db, Queryable } from '../../store/db.js';
import type { Call } from '../call.js';
import { DomainError, invalid, notFound } from '../errors.js';
import type { Scope } from './memories.js';
import { isoOrNull } from '../../lib/time.js';

export const AFM_IMPORTANCE = ['CRITICAL', 'RELEVANT', 'TRIVIAL'] as const;
export type AfmImportance = (typeof AFM_IMPORTANCE)[number];
export const AFM_MAX_MESSAGE_CHARS = 50_000;
export const AFM_MAX_MESSAGES = 10_000;
export const AFM_FORMAT = 'afm-history-v1';

interface MessageRow {
  id: string;
  seq: number;
  role: string;
  content: string;
  importance: AfmImportance;
  reason: string | null;
  tokens: number;
  created_at: Date | string;
}

const COLUMNS = 'id, seq, role, content, importance, reason, tokens, created_at';

export function messageResponse(m: MessageRow) {
  return { message_id: m.id, seq: m.seq, role: m.role, content: m.content, importance: m.importance, reason: m.reason, tokens: m.tokens, created_at: isoOrNull(m.created_at) };
}

/** Moves the conversation's version on and serialises writers to it (inside the writing transaction). */
async function bumpConversation(tx: Queryable, s: Scope, conversationId: string): Promise<void> {
  await tx.query(
    `insert into afm_conversations (user_id, scope, conversation_id, version) values ($1, $2, $3, 1)
     on conflict (user_id, scope, conversation_id) do update set version = afm_conversations.version + 1`,
    [s.userId, s.scope, conversationId],
  );
}

async function conversationVersion(db: Queryable, s: Scope, conversationId: string): Promise<number> {
  const [r] = await db.query<{ version: string | number }>('select version from afm_conversations where user_id = $1 and scope = $2 and conversation_id = $3', [s.userId, s.scope, conversationId]);
  return r ? Number(r.version) : 0;
}

const NONCE = Math.random().toString(36).slice(2, 10);

/**
 * Packs through the pool: workers keep each conversation version prepared, so a repeated build
 * sends only its key; on a miss the messages go along. Returns null for an empty conversation.
 */
async function packed(call: Call, s: Scope, conversationId: string, budget: number | null) {
  const db = call.services.db;
  const version = await conversationVersion(db, s, conversationId);
  if (version === 0) return null;
  const key = `${NONCE}:${s.userId}:${s.scope}:${conversationId}:${version}`;
  let out = await call.compute('afmPack', { key, budget });
  if (out.miss) {
    const rows = await messages(db, s, conversationId);
    if (!rows.length) return null;
    out = await call.compute('afmPack', { key, budget, messages: rows.map((m) => ({ seq: m.seq, role: m.role, importance: m.importance, content: m.content, tokens: m.tokens })) });
  }
  return out.miss ? null : out;
}

async function messages(db: Queryable, s: Scope, conversationId: string): Promise<MessageRow[]> {
  return db.query<MessageRow>(`select ${COLUMNS} from afm_messages where user_id = $1 and scope = $2 and conversation_id = $3 order by seq`, [s.userId, s.scope, conversationId]);
}

export async function afmSessionMessages(db: Queryable, s: Scope, conversationId: string) {
  return (await messages(db, s, conversationId)).map((m) => ({ role: m.role, content: m.content, importance: m.importance }));
}

export async function afmAdd(call: Call, s: Scope, conversationId: string, input: { role: string; content: string; importance?: AfmImportance; reason?: string }) {
  const prep = await call.compute('afmPrepare', { role: input.role, content: input.content });
  const importance = input.importance ?? prep.importance;
  const reason = input.reason ?? (input.importance ? 'given by the caller' : prep.reason);
  const db = call.services.db;
  return db.transaction(async (tx) => {
    // The version row's lock serialises appends to one conversation (seq is its order).
    await bumpConversation(tx, s, conversationId);
    const [{ n, next }] = (await tx.query<{ n: number; next: number }>(
      'select count(*)::int as n, coalesce(max(seq), 0)::int + 1 as next from afm_messages where user_id = $1 and scope = $2 and conversation_id = $3',
      [s.userId, s.scope, conversationId],
    )) as [{ n: number; next: number }];
    if (n >= AFM_MAX_MESSAGES) throw new DomainError('too_large', `A conversation holds at most ${AFM_MAX_MESSAGES} messages; export and clear it first`);
    const [row] = await tx.query<MessageRow>(
      `insert into afm_messages (user_id, scope, conversation_id, seq, role, content, importance, reason, tokens) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning ${COLUMNS}`,
      [s.userId, s.scope, conversationId, next, input.role, input.content, importance, reason, prep.tokens],
    );
    return row!;
  });
}

/** afmBuild, or null when the conversation has no messages. */
export async function afmBuildIfAny(call: Call, s: Scope, conversationId: string, budget: number) {
  try {
    return await afmBuild(call, s, conversationId, budget);
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') return null;
    throw err;
  }
}

export async function afmBuild(call: Call, s: Scope, conversationId: string, budget: number) {
  const out = await packed(call, s, conversationId, budget);
  if (!out?.packed) throw notFound('No messages in this conversation');
  const packed_ = out.packed;
  const forms = { FULL: 0, COMPRESSED: 0, PLACEHOLDER: 0 };
  for (const it of packed_.items) forms[it.form]++;
  const criticalFull = packed_.items.filter((i) => i.importance === 'CRITICAL' && i.form === 'FULL').length;
  return {
    conversation_id: conversationId,
    context: packed_.context,
    tokens: packed_.tokens,
    budget_tokens: budget,
    items: packed_.items,
    forms,
    dropped: packed_.dropped,
    critical_total: packed_.items.filter((i) => i.importance === 'CRITICAL').length + packed_.dropped_critical,
    critical_full: criticalFull,
    critical_full_tokens: out.critical_full_tokens,
  };
}

export async function afmStats(call: Call, s: Scope, conversationId: string) {
  const rows = await messages(call.services.db, s, conversationId);
  const by = { CRITICAL: 0, RELEVANT: 0, TRIVIAL: 0 };
  const tokens = { CRITICAL: 0, RELEVANT: 0, TRIVIAL: 0 };
  for (const r of rows) {
    by[r.importance]++;
    tokens[r.importance] += r.tokens;
  }
  const critical = rows.length ? ((await packed(call, s, conversationId, null)) ?? { critical_full_tokens: 0 }) : { critical_full_tokens: 0 };
  return {
    conversation_id: conversationId,
    message_count: rows.length,
    by_importance: by,
    tokens_by_importance: tokens,
    total_tokens: tokens.CRITICAL + tokens.RELEVANT + tokens.TRIVIAL,
    critical_full_tokens: critical.critical_full_tokens,
    first_at: isoOrNull(rows[0]?.created_at ?? null),
    last_at: isoOrNull(rows[rows.length - 1]?.created_at ?? null),
  };
}

export async function afmClear(db: Db, s: Scope, conversationId: string) {
  const rows = await db.transaction(async (tx) => {
    await bumpConversation(tx, s, conversationId);
    return tx.query<{ id: string }>('delete from afm_messages where user_id = $1 and scope = $2 and conversation_id = $3 returning id', [s.userId, s.scope, conversationId]);
  });
  return { conversation_id: conversationId, deleted: rows.length };
}

export interface ExportedMessage {
  seq: number;
  role: string;
  content: string;
  importance: AfmImportance;
  reason: string | null;
  tokens: number;
  created_at: string;
}

function hashOf(msgs: ExportedMessage[]): string {
  return createHash('sha256').update(JSON.stringify(msgs.map((m) => [m.seq, m.role, m.content, m.importance, m.reason, m.tokens, m.created_at]))).digest('hex');
}

export async function afmExport(db: Queryable, s: Scope, conversationId: string) {
  const rows = await messages(db, s, conversationId);
  if (!rows.length) throw notFound('No messages in this conversation');
  const msgs: ExportedMessage[] = rows.map((m) => ({ seq: m.seq, role: m.role, content: m.content, importance: m.importance, reason: m.reason, tokens: m.tokens, created_at: isoOrNull(m.created_at)! }));
  return { format: AFM_FORMAT, conversation_id: conversationId, message_count: msgs.length, content_hash: hashOf(msgs), messages: msgs };
}

export async function afmImport(db: Db, s: Scope, conversationId: string, history: { format: string; content_hash?: string; messages: ExportedMessage[] }, replace: boolean) {
  if (history.format !== AFM_FORMAT) throw invalid(`Unknown history format; expected ${AFM_FORMAT}`, { code: 'invalid_history' });
  const seqs = history.messages.map((m) => m.seq);
  if (new Set(seqs).size !== seqs.length) throw invalid('Message seq values repeat', { code: 'invalid_history' });
  if (history.content_hash !== undefined && history.content_hash !== hashOf(history.messages)) {
    throw invalid('content_hash does not match the messages (altered or truncated export)', { code: 'invalid_history' });
  }
  return db.transaction(async (tx) => {
    await bumpConversation(tx, s, conversationId);
    const existing = await tx.query<{ n: number }>('select count(*)::int as n from afm_messages where user_id = $1 and scope = $2 and conversation_id = $3', [s.userId, s.scope, conversationId]);
    if (existing[0]!.n > 0) {
      if (!replace) throw new DomainError('conflict', 'This conversation already has messages; pass replace: true to overwrite them');
      await tx.query('delete from afm_messages where user_id = $1 and scope = $2 and conversation_id = $3', [s.userId, s.scope, conversationId]);
    }
    for (let i = 0; i < history.messages.length; i += 500) {
      const part = history.messages.slice(i, i + 500);
      const params: unknown[] = [s.userId, s.scope, conversationId];
      const values = part.map((m) => {
        params.push(m.seq, m.role, m.content, m.importance, m.reason, m.tokens, m.created_at);
        const b = params.length - 7;
        return `($1, $2, $3, $${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}::timestamptz)`;
      });
      await tx.query(`insert into afm_messages (user_id, scope, conversation_id, seq, role, content, importance, reason, tokens, created_at) values ${values.join(', ')}`, params);
    }
    return { conversation_id: conversationId, imported: history.messages.length, replaced: existing[0]!.n };
  });
}
