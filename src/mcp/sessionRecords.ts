// The shared record of an MCP session (migration 210_mcp_sessions.sql): what any instance needs to
// serve a session it did not open, and what a call changed, written back before the call is answered.
import type { Queryable } from '../store/db.js';
import { SESSION_HISTORY_LIMIT, type SessionState, type StoredSettings } from './session.js';

type HistoryEntry = SessionState['history'][number];

export interface SessionRecord {
  id: string;
  owner: string;
  protocolVersion: string;
  clientInfo: unknown;
  clientCapabilities: unknown;
  settings: StoredSettings;
  history: HistoryEntry[];
  seen: string[];
  revision: number;
  createdAt: number;
  /** Milliseconds since last_seen, by the database's clock (instances' clocks may differ). */
  idleMs: number;
}

/** What changed in a session during one request. */
export interface SessionDelta {
  settings: StoredSettings | null;
  history: HistoryEntry[];
  seen: string[];
}

export const isEmptyDelta = (d: SessionDelta) => d.settings === null && d.history.length === 0 && d.seen.length === 0;

const json = (v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as unknown) : v);
const idleMs = `(extract(epoch from (now() - last_seen)) * 1000)::float8 as idle_ms`;

interface Row {
  id: string;
  owner: string;
  protocol_version: string;
  client_info: unknown;
  client_capabilities: unknown;
  settings: unknown;
  history: unknown;
  seen: unknown;
  revision: string | number;
  created_at: Date | string;
  idle_ms: number;
}

function recordOf(row: Row): SessionRecord {
  return {
    id: row.id,
    owner: row.owner,
    protocolVersion: row.protocol_version,
    clientInfo: json(row.client_info),
    clientCapabilities: json(row.client_capabilities),
    settings: json(row.settings) as StoredSettings,
    history: (json(row.history) as HistoryEntry[] | null) ?? [],
    seen: (json(row.seen) as string[] | null) ?? [],
    revision: Number(row.revision),
    createdAt: new Date(row.created_at).getTime(),
    idleMs: Number(row.idle_ms),
  };
}

/**
 * Stores a new session; in the same statement the key's oldest sessions beyond `maxPerKey - 1` go
 * (the per-key cap counts every instance's sessions). Two initializes of one key racing on two instances
 * can leave it one session over the cap until its next initialize. Returns the ids it closed.
 */
export async function insertRecord(db: Queryable, r: Omit<SessionRecord, 'revision' | 'idleMs' | 'history' | 'seen'>, maxPerKey: number): Promise<string[]> {
  const [row] = await db.query<{ doomed: string[] | null }>(
    `with doomed as (
       delete from mcp_sessions where id in (
         select id from mcp_sessions where owner = $2 order by last_seen desc, created_at desc offset $8) returning id)
     insert into mcp_sessions (id, owner, protocol_version, client_info, client_capabilities, settings, created_at)
     values ($1, $2, $3, $4::text::jsonb, $5::text::jsonb, $6::text::jsonb, $7)
     returning (select array_agg(id) from doomed) as doomed`,
    [r.id, r.owner, r.protocolVersion, JSON.stringify(r.clientInfo ?? null), JSON.stringify(r.clientCapabilities ?? null), JSON.stringify(r.settings), new Date(r.createdAt), Math.max(0, maxPerKey - 1)],
  );
  return row?.doomed ?? [];
}

export async function readRecord(db: Queryable, id: string): Promise<SessionRecord | null> {
  const [row] = await db.query<Row>(
    `select id, owner, protocol_version, client_info, client_capabilities, settings, history, seen, revision, created_at, ${idleMs}
       from mcp_sessions where id = $1`,
    [id],
  );
  return row ? recordOf(row) : null;
}

/**
 * One primary-key read per request on a session this instance holds: who owns it and how idle it is,
 * and its mutable parts only when its revision moved past `revision` (another instance wrote).
 */
export async function readIfChanged(db: Queryable, id: string, revision: number): Promise<{ owner: string; revision: number; idleMs: number; changed: Pick<SessionRecord, 'settings' | 'history' | 'seen'> | null } | null> {
  const [row] = await db.query<Row>(
    `select owner, revision, ${idleMs},
            case when revision <> $2 then settings end as settings,
            case when revision <> $2 then history end as history,
            case when revision <> $2 then seen end as seen
       from mcp_sessions where id = $1`,
    [id, revision],
  );
  if (!row) return null;
  const r = Number(row.revision);
  const changed = r !== revision ? { settings: json(row.settings) as StoredSettings, history: (json(row.history) as HistoryEntry[]) ?? [], seen: (json(row.seen) as string[]) ?? [] } : null;
  return { owner: row.owner, revision: r, idleMs: Number(row.idle_ms), changed };
}

/**
 * Writes what one request changed and touches last_seen, in one statement: settings replaced (last
 * writer wins), history appended and cut to its limit, dedup ids added. Returns the new revision, or
 * null when the session is gone (deleted or expired elsewhere).
 */
export async function writeDelta(db: Queryable, id: string, delta: SessionDelta): Promise<number | null> {
  const [row] = await db.query<{ revision: string | number }>(
    `update mcp_sessions set
        settings = coalesce($2::text::jsonb, settings),
        history = case when $3::text = '[]' then history else (
          select coalesce(jsonb_agg(e order by i), '[]'::jsonb)
            from jsonb_array_elements(history || $3::text::jsonb) with ordinality t(e, i)
           where i > jsonb_array_length(history || $3::text::jsonb) - $5) end,
        seen = case when $4::text = '[]' then seen else (
          select coalesce(jsonb_agg(distinct x), '[]'::jsonb) from jsonb_array_elements(seen || $4::text::jsonb) x) end,
        revision = revision + 1,
        last_seen = now()
      where id = $1 returning revision`,
    [id, delta.settings ? JSON.stringify(delta.settings) : null, JSON.stringify(delta.history), JSON.stringify(delta.seen), SESSION_HISTORY_LIMIT],
  );
  return row ? Number(row.revision) : null;
}

/** last_seen only (no revision bump: nothing another instance must re-read). False when the session is gone. */
export async function touchRecord(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query('update mcp_sessions set last_seen = now() where id = $1 returning 1 as ok', [id]);
  return rows.length > 0;
}

export async function deleteRecord(db: Queryable, id: string): Promise<void> {
  await db.query('delete from mcp_sessions where id = $1', [id]);
}

/** Sessions idle past `idleMs` everywhere; any instance may run it (the delete is idempotent). */
export async function deleteExpired(db: Queryable, idleMs: number): Promise<number> {
  const rows = await db.query('delete from mcp_sessions where last_seen < now() - make_interval(secs => $1::double precision / 1000) returning id', [idleMs]);
  return rows.length;
}
