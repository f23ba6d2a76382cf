// Handoff bundles: a session's state (compression profile, recent tool calls, the caller's notes), its
// key memories and current facts, and its conversation compressed to a budget, stored as canonical
// JSON with its SHA-256. Replaying one restores it into another MCP session, so a second agent can
// continue where the first stopped.
import { createHash } from 'node:crypto';
import type { Db, Queryable } from '../../store/db.js';
import type { Call } from '../call.js';
import { DomainError, notFound } from '../errors.js';
import { afmBuildIfAny } from './afm.js';
import { currentFacts } from './facts.js';
import { factResponse, type MemoryRow, type Scope } from './memories.js';
import { isoOrNull } from '../../lib/time.js';

export const BUNDLE_FORMAT = 'handoff-bundle-v1';
export const MAX_BUNDLE_CHARS = 2_000_000;

/** JSON with sorted keys at every level: the same bundle always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export interface SessionSnapshot {
  id: string | null;
  profile: string;
  overrides: Record<string, unknown>;
  history: { tool: string; at: string; summary: string }[];
}

export interface CreateBundleInput {
  title?: string;
  notes?: string;
  state?: Record<string, unknown>;
  sessionId: string;
  conversationId: string;
  memoryLimit: number;
  historyBudgetTokens: number;
  session: SessionSnapshot;
}

function oneLine(text: string, max = 2000): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}

/** The text a receiving agent reads first: notes and state, facts, key memories, compressed history. */
export function bundleContext(b: {
  title: string;
  notes: string | null;
  state: Record<string, unknown>;
  facts: { key: string; value: string }[];
  memories: { kind: string; title: string; content: string }[];
  history: { context: string } | null;
  session_state: { recent_calls: { tool: string; summary: string }[] };
}): string {
  const lines = [`# Handoff: ${b.title}`];
  if (b.notes) lines.push('## Notes', b.notes);
  if (Object.keys(b.state).length) lines.push('## State', canonicalJson(b.state));
  if (b.facts.length) lines.push('## Facts', ...b.facts.map((f) => `- ${f.key}: ${oneLine(f.value, 500)}`));
  if (b.memories.length) lines.push('## Key memories', ...b.memories.map((m) => `- [${m.kind}] ${m.title}: ${oneLine(m.content)}`));
  if (b.history?.context) lines.push('## Conversation (compressed)', b.history.context);
  if (b.session_state.recent_calls.length) lines.push('## Recent tool calls', ...b.session_state.recent_calls.map((c) => `- ${c.tool}: ${oneLine(c.summary, 200)}`));
  return lines.join('\n');
}

interface BundleRow {
  id: string;
  session_id: string | null;
  title: string;
  content: string;
  content_hash: string;
  tokens: number;
  created_at: Date | string;
  replayed_count: number;
}

export function bundleSummary(r: BundleRow) {
  return { bundle_id: r.id, title: r.title, session_id: r.session_id, content_hash: r.content_hash, tokens: r.tokens, created_at: isoOrNull(r.created_at), replayed_count: r.replayed_count };
}

export async function createBundle(call: Call, s: Scope, input: CreateBundleInput) {
  const db = call.services.db;
  const memories = await db.query<MemoryRow>(
    `select id, session_id, kind, title, content, tags, tokens, created_at from memories
     where user_id = $1 and scope = $2 order by (session_id is not distinct from $3) desc, created_at desc, id desc limit $4`,
    [s.userId, s.scope, input.sessionId, input.memoryLimit],
  );
  const facts = (await currentFacts(db, s)).slice(0, 100).map(factResponse);
  const history = await afmBuildIfAny(call, s, input.conversationId, input.historyBudgetTokens);
  const title = input.title?.trim() || `Session ${input.sessionId}`;
  const bundle = {
    format: BUNDLE_FORMAT,
    title,
    notes: input.notes ?? null,
    state: input.state ?? {},
    source_session_id: input.sessionId,
    conversation_id: input.conversationId,
    session_state: {
      profile: input.session.profile,
      overrides: input.session.overrides,
      recent_calls: input.session.history.slice(-20).map((h) => ({ tool: h.tool, at: h.at, summary: h.summary })),
    },
    memories: memories.map((m) => ({ memory_id: m.id, kind: m.kind, title: m.title, content: m.content, session_id: m.session_id })),
    facts: facts.map((f) => ({ fact_id: f.fact_id, key: f.key, value: f.value, kind: f.kind, valid_from: f.valid_from })),
    history: history ? { context: history.context, tokens: history.tokens, budget_tokens: input.historyBudgetTokens, forms: history.forms, messages: history.items.length } : null,
  };
  const context = bundleContext(bundle);
  const content = canonicalJson({ ...bundle, context });
  if (content.length > MAX_BUNDLE_CHARS) throw new DomainError('too_large', `The bundle would be ${content.length} characters (at most ${MAX_BUNDLE_CHARS}); lower memory_limit or history_budget_tokens`);
  const contentHash = sha256(content);
  const tokens = (await call.compute('memoryCount', { texts: [context] })).tokens[0]!;
  const [row] = await db.query<BundleRow>(
    `insert into handoff_bundles (user_id, scope, session_id, title, content, content_hash, tokens) values ($1, $2, $3, $4, $5, $6, $7)
     returning id, session_id, title, content, content_hash, tokens, created_at, replayed_count`,
    [s.userId, s.scope, input.sessionId, title, content, contentHash, tokens],
  );
  return { ...bundleSummary(row!), bundle: JSON.parse(content) as Record<string, unknown> };
}

export async function getBundle(db: Queryable, s: Scope, bundleId: string) {
  const [row] = await db.query<BundleRow>(
    'select id, session_id, title, content, content_hash, tokens, created_at, replayed_count from handoff_bundles where id = $1 and user_id = $2 and scope = $3',
    [bundleId, s.userId, s.scope],
  );
  if (!row) throw notFound('Handoff bundle not found');
  const verified = sha256(row.content) === row.content_hash;
  return { ...bundleSummary(row), verified, bundle: JSON.parse(row.content) as Record<string, any> };
}

export async function listBundles(db: Queryable, s: Scope, limit: number) {
  const rows = await db.query<BundleRow>(
    'select id, session_id, title, content_hash, tokens, created_at, replayed_count from handoff_bundles where user_id = $1 and scope = $2 order by created_at desc, id desc limit $3',
    [s.userId, s.scope, limit],
  );
  const [{ total }] = (await db.query<{ total: number }>('select count(*)::int as total from handoff_bundles where user_id = $1 and scope = $2', [s.userId, s.scope])) as [{ total: number }];
  return { bundles: rows.map(bundleSummary), total };
}

export async function markReplayed(db: Db, bundleId: string): Promise<number> {
  const [r] = await db.query<{ replayed_count: number }>('update handoff_bundles set replayed_count = replayed_count + 1 where id = $1 returning replayed_count', [bundleId]);
  return r?.replayed_count ?? 0;
}
