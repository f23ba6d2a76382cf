// ACE playbooks: itemised bullets (section, content, helpful/harmful counters) per user and scope (the
// key's project, else the user's own), named ('default' unless told). Reads and the shapes tools return.
import type { Queryable } from '../../store/db.js';
import { invalid, notFound } from '../errors.js';
import { type Scope } from '../memory/memories.js';
import { isoOrNull } from '../../lib/time.js';

export const DEFAULT_PLAYBOOK = 'default';
/** The sections the ACE paper's playbooks use; any other short lowercase name is accepted too. */
export const KNOWN_SECTIONS = ['strategies', 'pitfalls', 'tools/apis', 'formulas', 'verification'] as const;
export const DEFAULT_SECTION = 'strategies';
export const MAX_BULLET_CHARS = 2000;
/** Bullets one playbook may hold: refine compares every pair (2,000 bullets: 2 M cosines of 100 values in the pool). */
export const MAX_BULLETS = 2000;
/** Cosine at or over which two bullets are the same insight (glove-sif-100d; docs/ace.md has the measurements). */
export const DEFAULT_SIMILARITY = 0.9;

export interface PlaybookRow {
  id: string;
  name: string;
  version: string | number;
  next_seq: number;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface BulletRow {
  id: string;
  seq: number;
  section: string;
  content: string;
  helpful_count: number;
  harmful_count: number;
  tokens: number;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
}

export const PLAYBOOK_COLUMNS = 'id, name, version, next_seq, created_at, updated_at';
export const BULLET_COLUMNS = 'id, seq, section, content, helpful_count, harmful_count, tokens, version, created_at, updated_at';

/** How a tool names a playbook: by id (must exist), else by name (default 'default'). */
export interface PlaybookRef {
  playbookId?: string;
  name?: string;
}

export const label = (b: Pick<BulletRow, 'seq'>) => `b${b.seq}`;

export function bulletResponse(b: BulletRow) {
  return {
    bullet_id: b.id,
    label: label(b),
    section: b.section,
    content: b.content,
    helpful_count: b.helpful_count,
    harmful_count: b.harmful_count,
    tokens: b.tokens,
    version: b.version,
    created_at: isoOrNull(b.created_at),
    updated_at: isoOrNull(b.updated_at),
  };
}

export function playbookResponse(p: PlaybookRow) {
  return { playbook_id: p.id, name: p.name, version: Number(p.version), created_at: isoOrNull(p.created_at), updated_at: isoOrNull(p.updated_at) };
}

/** The section name as stored: trimmed, lowercase, inner whitespace collapsed. */
export function normaliseSection(s: string | undefined): string {
  const v = (s ?? DEFAULT_SECTION).trim().toLowerCase().replace(/\s+/g, ' ');
  if (!/^[a-z0-9][a-z0-9 _/&-]{0,39}$/.test(v)) throw invalid(`section '${s}' is not a short name (letters, digits, space, _ / & -; at most 40)`);
  return v;
}

/** The playbook a ref names, or not_found (another user's or scope's playbook is not found either). */
export async function findPlaybook(db: Queryable, s: Scope, ref: PlaybookRef): Promise<PlaybookRow> {
  const rows = ref.playbookId
    ? await db.query<PlaybookRow>(`select ${PLAYBOOK_COLUMNS} from ace_playbooks where id = $1 and user_id = $2 and scope = $3`, [ref.playbookId, s.userId, s.scope])
    : await db.query<PlaybookRow>(`select ${PLAYBOOK_COLUMNS} from ace_playbooks where name = $1 and user_id = $2 and scope = $3`, [ref.name ?? DEFAULT_PLAYBOOK, s.userId, s.scope]);
  if (!rows[0]) throw notFound(ref.playbookId ? 'Playbook not found' : `Playbook '${ref.name ?? DEFAULT_PLAYBOOK}' not found`);
  return rows[0];
}

/** The named playbook, created empty when it does not exist yet; a playbook_id must exist. */
export async function ensurePlaybook(db: Queryable, s: Scope, ref: PlaybookRef): Promise<PlaybookRow> {
  if (ref.playbookId) return findPlaybook(db, s, ref);
  const name = ref.name ?? DEFAULT_PLAYBOOK;
  await db.query('insert into ace_playbooks (user_id, scope, name) values ($1, $2, $3) on conflict (user_id, scope, name) do nothing', [s.userId, s.scope, name]);
  return findPlaybook(db, s, { name });
}

export async function listBullets(db: Queryable, playbookId: string, section?: string): Promise<BulletRow[]> {
  return section
    ? db.query<BulletRow>(`select ${BULLET_COLUMNS} from ace_bullets where playbook_id = $1 and section = $2 order by seq`, [playbookId, section])
    : db.query<BulletRow>(`select ${BULLET_COLUMNS} from ace_bullets where playbook_id = $1 order by seq`, [playbookId]);
}

/** Bullets by id within one playbook; an id that is not there is not_found. */
export async function bulletsByIds(db: Queryable, playbookId: string, ids: string[]): Promise<BulletRow[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rows = await db.query<BulletRow>(`select ${BULLET_COLUMNS} from ace_bullets where playbook_id = $1 and id = any($2::uuid[])`, [playbookId, unique]);
  if (rows.length !== unique.length) {
    const have = new Set(rows.map((r) => r.id));
    throw notFound(`Bullet ${unique.find((id) => !have.has(id))} not found in this playbook`);
  }
  const byId = new Map(rows.map((r) => [r.id, r]));
  return unique.map((id) => byId.get(id)!);
}

/** The playbook's bullet vectors in seq order (row-major float32), for similarity in the pool. */
export async function loadVectors(db: Queryable, playbookId: string): Promise<{ rows: BulletRow[]; vectors: Float32Array; n: number; dims: number }> {
  const rows = await db.query<BulletRow & { embedding: unknown; dims: number }>(`select ${BULLET_COLUMNS}, embedding, dims from ace_bullets where playbook_id = $1 order by seq`, [playbookId]);
  const dims = rows[0]?.dims ?? 0;
  const vectors = new Float32Array(rows.length * dims);
  rows.forEach((r, i) => {
    if (r.dims !== dims) return;
    const bytes = r.embedding instanceof Uint8Array ? r.embedding : Buffer.from(String(r.embedding).replace(/^\\x/, ''), 'hex');
    const v = new Float32Array(dims);
    new Uint8Array(v.buffer).set(bytes.subarray(0, dims * 4));
    vectors.set(v, i * dims);
  });
  return { rows: rows.map(({ embedding: _e, dims: _d, ...b }) => b), vectors, n: rows.length, dims };
}

export function encodeVector(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** The playbook as prompt text: bullets grouped by section (first-seen order), each with its label. */
export function renderBullets(bullets: BulletRow[]): string {
  const bySection = new Map<string, BulletRow[]>();
  for (const b of bullets) {
    const list = bySection.get(b.section) ?? [];
    list.push(b);
    bySection.set(b.section, list);
  }
  return [...bySection].map(([section, list]) => `## ${section}\n${list.map((b) => `[${label(b)}] ${b.content}`).join('\n')}`).join('\n\n');
}
