// What memory gives back to an agent: a token-budgeted context block (current facts, ranked memories
// and Knowledge Hub chunks), the user's profile, a summary, and a session's stored history.
import type { Call } from '../call.js';
import { notFound } from '../errors.js';
import { queryKnowledge } from '../knowledge/query.js';
import { currentFacts } from './facts.js';
import { factResponse, FACT_COLUMNS, type FactRow, memoriesByIds, memoryResponse, type MemoryRow, type Scope, searchMemories, tagsOf } from './memories.js';
import { isoOrNull } from '../../lib/time.js';

const MEMORY_CANDIDATES = 40;
const KNOWLEDGE_CANDIDATES = 10;

interface Candidate {
  source: 'fact' | 'memory' | 'knowledge';
  id: string;
  line: string;
  score: number;
}

export interface ContextBlockInput {
  query?: string;
  budgetTokens: number;
  includeKnowledge: boolean;
  includeFacts: boolean;
}

function oneLine(text: string, max = 2000): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}

/**
 * Packs current facts first, then memories and knowledge chunks alternating by rank, while they fit
 * the budget (an item that does not fit is skipped and smaller ones still may). The block's token
 * count (o200k_base) is measured on the final text and is never above the budget.
 */
export async function contextBlock(call: Call, s: Scope, input: ContextBlockInput) {
  const db = call.services.db;
  const facts: Candidate[] = input.includeFacts
    ? (await currentFacts(db, s)).slice(0, 50).map((f) => ({ source: 'fact' as const, id: f.id, line: `- ${f.key}: ${oneLine(f.value, 500)}`, score: 1 }))
    : [];
  let memoryIds: { id: string; score: number }[];
  if (input.query) {
    const { hits } = await searchMemories(call, s, input.query, MEMORY_CANDIDATES);
    memoryIds = hits.map((h) => ({ id: h.memory_id, score: h.score }));
  } else {
    const rows = await db.query<{ id: string }>('select id from memories where user_id = $1 and scope = $2 order by created_at desc, id desc limit $3', [s.userId, s.scope, MEMORY_CANDIDATES]);
    memoryIds = rows.map((r, i) => ({ id: r.id, score: 1 / (60 + i + 1) }));
  }
  const rows = await memoriesByIds(db, s, memoryIds.map((m) => m.id));
  const scoreOf = new Map(memoryIds.map((m) => [m.id, m.score]));
  const memories: Candidate[] = rows.map((m) => ({ source: 'memory', id: m.id, line: `- [${m.kind}] ${m.title}: ${oneLine(m.content)}`, score: scoreOf.get(m.id) ?? 0 }));
  let knowledge: Candidate[] = [];
  if (input.includeKnowledge && input.query && call.principal.projectId) {
    const kb = await queryKnowledge(call.services, call.principal, call.principal.projectId, { query: input.query, limit: KNOWLEDGE_CANDIDATES, mcpExposedOnly: true }, call.signal);
    knowledge = kb.results.map((c) => ({ source: 'knowledge', id: c.chunk_id, line: `- (${c.item_name}${c.heading ? ` § ${c.heading}` : ''}) ${oneLine(c.raw_text)}`, score: c.rank_score }));
  }
  // Memories and chunks alternate by rank: neither source crowds the other out.
  const ranked: Candidate[] = [];
  for (let i = 0; i < Math.max(memories.length, knowledge.length); i++) {
    if (memories[i]) ranked.push(memories[i]!);
    if (knowledge[i]) ranked.push(knowledge[i]!);
  }
  const headers = { fact: '## Known facts', memory: '## Memories', knowledge: '## Knowledge' };
  const candidates = [...facts, ...ranked];
  const counted = candidates.length
    ? (await call.compute('memoryCount', { texts: [...candidates.map((c) => c.line), ...Object.values(headers)] })).tokens
    : Object.values(headers).map(() => 0);
  const headerTokens = counted.slice(candidates.length);
  const headerCost = { fact: headerTokens[0]! + 2, memory: headerTokens[1]! + 2, knowledge: headerTokens[2]! + 2 };
  let chosen: (Candidate & { tokens: number })[] = [];
  let used = 0;
  const opened = new Set<string>();
  candidates.forEach((c, i) => {
    const cost = counted[i]! + 1 + (opened.has(c.source) ? 0 : headerCost[c.source]);
    if (used + cost > input.budgetTokens) return;
    used += cost;
    opened.add(c.source);
    chosen.push({ ...c, tokens: counted[i]! });
  });
  const render = (items: typeof chosen) =>
    (['fact', 'memory', 'knowledge'] as const)
      .map((src) => {
        const lines = items.filter((c) => c.source === src).map((c) => c.line);
        return lines.length ? `${headers[src]}\n${lines.join('\n')}` : '';
      })
      .filter(Boolean)
      .join('\n\n');
  let block = render(chosen);
  let tokens = block ? (await call.compute('memoryCount', { texts: [block] })).tokens[0]! : 0;
  // Counting pieces is close to counting the whole; when the whole is over, drop from the end.
  while (tokens > input.budgetTokens && chosen.length) {
    chosen = chosen.slice(0, -1);
    block = render(chosen);
    tokens = block ? (await call.compute('memoryCount', { texts: [block] })).tokens[0]! : 0;
  }
  return {
    block,
    tokens,
    budget_tokens: input.budgetTokens,
    items: chosen.map((c) => ({ source: c.source, id: c.id, tokens: c.tokens, score: c.score })),
    omitted: candidates.length - chosen.length,
    candidates: candidates.length,
  };
}

/** The most statements stored without a key listed (preferences and facts together), newest first. */
const UNKEYED_LIMIT = 200;

/**
 * Preference and fact memories stored without a key (no memory_facts row), in the shape of a current
 * fact (fact_id and key null, value the content), newest first.
 */
async function unkeyedStatements(call: Call, s: Scope) {
  const rows = await call.services.db.query<{ id: string; kind: string; title: string; content: string; created_at: Date | string }>(
    `select m.id, m.kind, m.title, m.content, m.created_at from memories m
      where m.user_id = $1 and m.scope = $2 and m.kind in ('preference', 'fact')
        and not exists (select 1 from memory_facts f where f.memory_id = m.id)
      order by m.created_at desc, m.id desc limit $3`,
    [s.userId, s.scope, UNKEYED_LIMIT],
  );
  return rows.map((m) => ({
    fact_id: null,
    key: null,
    title: m.title,
    value: m.content,
    kind: m.kind,
    memory_id: m.id,
    valid_from: isoOrNull(m.created_at),
    valid_to: null,
    recorded_at: isoOrNull(m.created_at),
    invalidated_at: null,
    invalidation_reason: null,
    superseded_by: null,
    current: true,
  }));
}

export async function userProfile(call: Call, s: Scope) {
  const db = call.services.db;
  const facts = await currentFacts(db, s);
  const [stats] = await db.query<{ memory_count: number; session_count: number; updated_at: Date | string | null }>(
    'select count(*)::int as memory_count, count(distinct session_id)::int as session_count, max(created_at) as updated_at from memories where user_id = $1 and scope = $2',
    [s.userId, s.scope],
  );
  const tags = await db.query<{ tag: string; n: number }>(
    `select t.tag, count(*)::int as n from memories m, jsonb_array_elements_text(m.tags) as t(tag)
     where m.user_id = $1 and m.scope = $2 group by t.tag order by n desc, t.tag limit 10`,
    [s.userId, s.scope],
  );
  const unkeyed = await unkeyedStatements(call, s);
  return {
    user_id: s.userId,
    project_id: s.scope || null,
    // Keyed statements are their current bi-temporal fact; a preference or fact stored without a key is itself current.
    preferences: [...facts.filter((f) => f.kind === 'preference').map(factResponse), ...unkeyed.filter((m) => m.kind === 'preference')],
    facts: [...facts.filter((f) => f.kind === 'fact').map(factResponse), ...unkeyed.filter((m) => m.kind === 'fact')],
    memory_count: stats?.memory_count ?? 0,
    session_count: stats?.session_count ?? 0,
    top_tags: tags.map((t) => ({ tag: t.tag, count: t.n })),
    updated_at: isoOrNull(stats?.updated_at ?? null),
  };
}

export async function summarizeMemory(call: Call, s: Scope, recentLimit: number) {
  const profile = await userProfile(call, s);
  const db = call.services.db;
  const kinds = await db.query<{ kind: string; n: number }>('select kind, count(*)::int as n from memories where user_id = $1 and scope = $2 group by kind', [s.userId, s.scope]);
  const recent = await db.query<MemoryRow>(
    'select id, session_id, kind, title, content, tags, tokens, created_at from memories where user_id = $1 and scope = $2 order by created_at desc, id desc limit $3',
    [s.userId, s.scope, recentLimit],
  );
  const byKind = Object.fromEntries(['note', 'preference', 'fact', 'event'].map((k) => [k, kinds.find((r) => r.kind === k)?.n ?? 0]));
  const parts: string[] = [];
  parts.push(`${profile.memory_count} memories across ${profile.session_count} sessions (${Object.entries(byKind).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}).`);
  const statement = (p: { key: string | null; value: string }) => (p.key === null ? oneLine(p.value, 200) : `${p.key} = ${oneLine(p.value, 200)}`);
  if (profile.preferences.length) parts.push(`Preferences: ${profile.preferences.map(statement).join('; ')}.`);
  if (profile.facts.length) parts.push(`Facts: ${profile.facts.map(statement).join('; ')}.`);
  if (profile.top_tags.length) parts.push(`Topics: ${profile.top_tags.map((t) => t.tag).join(', ')}.`);
  if (recent.length) parts.push(`Recent: ${recent.map((m) => m.title).join('; ')}.`);
  const summary = parts.join('\n');
  const tokens = (await call.compute('memoryCount', { texts: [summary] })).tokens[0]!;
  return {
    summary,
    tokens,
    memory_count: profile.memory_count,
    session_count: profile.session_count,
    by_kind: byKind,
    top_tags: profile.top_tags,
    preferences: profile.preferences,
    facts: profile.facts,
    recent: recent.map((m) => ({ memory_id: m.id, title: m.title, kind: m.kind, created_at: isoOrNull(m.created_at) })),
  };
}

/** A session's stored history: its memories in order, the facts they recorded, and one context text. */
export async function recoverSession(call: Call, s: Scope, sessionId: string, extra: { afm?: { role: string; content: string; importance: string }[] } = {}) {
  const db = call.services.db;
  const memories = await db.query<MemoryRow>(
    'select id, session_id, kind, title, content, tags, tokens, created_at from memories where user_id = $1 and scope = $2 and session_id = $3 order by created_at, id',
    [s.userId, s.scope, sessionId],
  );
  const afm = extra.afm ?? [];
  if (!memories.length && !afm.length) throw notFound('No stored history for this session');
  const facts = memories.length
    ? await db.query<FactRow>(`select ${FACT_COLUMNS} from memory_facts where user_id = $1 and scope = $2 and memory_id = any($3::uuid[]) order by valid_from`, [
        s.userId,
        s.scope,
        memories.map((m) => m.id),
      ])
    : [];
  const lines = [`# Session ${sessionId}`];
  if (memories.length) lines.push('## Memories', ...memories.map((m) => `- [${m.kind}] ${m.title}: ${oneLine(m.content)}`));
  const current = facts.filter((f) => factResponse(f).current);
  if (current.length) lines.push('## Facts', ...current.map((f) => `- ${f.key}: ${oneLine(f.value, 500)}`));
  if (afm.length) lines.push('## Conversation', ...afm.map((m) => `${m.role} (${m.importance}): ${oneLine(m.content)}`));
  const context = lines.join('\n');
  const tokens = (await call.compute('memoryCount', { texts: [context] })).tokens[0]!;
  return {
    session_id: sessionId,
    memories: memories.map(memoryResponse),
    facts: facts.map(factResponse),
    messages: afm,
    context,
    tokens,
    memory_count: memories.length,
  };
}

export { tagsOf };
