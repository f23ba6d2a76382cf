import { createHash } from 'node:crypto';
import type { Queryable } from '../../store/db.js';
import { FIDELITIES, budgetFor, type Fidelity } from '../../../workers/shared/fidelity.js';
import { parseBlocks } from '../../../workers/shared/markdown.js';
import { STOPWORDS } from '../../../workers/shared/stopwords.js';
import { isoOrNull } from '../../lib/time.js';

// ---------------------------------------------------------------------------------------------
// Splitting (pure, linear in the text; safe on the event loop and importable from a worker).
// ---------------------------------------------------------------------------------------------

export interface SplitNode {
  id: string;
  heading: string | null;
  /** Markdown heading level (1-6); 0 for text without a heading. */
  level: number;
  /** Exact slice of the original text. */
  text: string;
}

/** Sections longer than this are split again at blank lines. */
export const MAX_NODE_CHARS = 4000;
/** Without headings, blank-line blocks are grouped until a node reaches this size. */
export const MIN_NODE_CHARS = 400;

interface Cut {
  start: number;
  heading: string | null;
  level: number;
}

/**
 * Splits a document into nodes: one per Markdown heading section (text before the first heading is
 * a preamble node); without headings, blocks grouped to at least MIN_NODE_CHARS. Any node longer than
 * MAX_NODE_CHARS is cut again between blocks. Block structure comes from the shared Markdown parser
 * (workers/shared/markdown.ts), so headings inside code fences do not split. Nodes are exact,
 * contiguous slices covering the whole text, so RAW retrieval is lossless.
 */
export function splitIntoNodes(text: string): SplitNode[] {
  const blocks = parseBlocks(text);
  const headings = blocks.filter((b) => b.kind === 'heading');
  const hasHeadings = headings.length > 0;
  // Sections: [start of a heading block (or 0), start of the next one (or the end)).
  const sections: Cut[] = [];
  if (!hasHeadings || lineStart(text, headings[0]!.start) > 0) sections.push({ start: 0, heading: null, level: 0 });
  for (const h of headings) {
    sections.push({ start: lineStart(text, h.start), heading: text.slice(h.contentStart, h.contentEnd).replace(/[ \t]#+[ \t]*$/, '').trim() || '#'.repeat(h.level), level: h.level });
  }
  const cuts: Cut[] = [];
  sections.forEach((section, i) => {
    const end = sections[i + 1]?.start ?? text.length;
    if (hasHeadings && end - section.start <= MAX_NODE_CHARS) {
      cuts.push(section);
      return;
    }
    // Group the section's blocks: to at least MIN_NODE_CHARS without headings, at most MAX_NODE_CHARS always.
    const minChars = hasHeadings ? MAX_NODE_CHARS : MIN_NODE_CHARS;
    const inside = blocks.filter((b) => b.kind !== 'heading' && b.start >= section.start && b.start < end);
    let groupStart = section.start;
    let part = 1;
    cuts.push(section);
    inside.forEach((b, k) => {
      const start = k === 0 ? groupStart : lineStart(text, b.start);
      if (start > groupStart && b.end - groupStart > MAX_NODE_CHARS) {
        part++;
        cuts.push({ start, heading: section.heading === null ? null : `${section.heading} (part ${part})`, level: section.level });
        groupStart = start;
      }
      const next = inside[k + 1];
      if (next && b.end - groupStart >= minChars) {
        part++;
        const at = lineStart(text, next.start);
        cuts.push({ start: at, heading: section.heading === null ? null : `${section.heading} (part ${part})`, level: section.level });
        groupStart = at;
      }
    });
  });
  // Slices between cuts; a whitespace-only slice joins its neighbour so the nodes still cover the text.
  const nodes: { heading: string | null; level: number; start: number; end: number }[] = [];
  cuts.forEach((cut, i) => {
    const end = cuts[i + 1]?.start ?? text.length;
    if (end <= cut.start) return;
    if (text.slice(cut.start, end).trim() === '') {
      if (nodes.length) nodes[nodes.length - 1]!.end = end;
      else if (i + 1 < cuts.length) cuts[i + 1]!.start = cut.start;
      return;
    }
    nodes.push({ heading: cut.heading, level: cut.level, start: cut.start, end });
  });
  return nodes.map((n, i) => ({ id: `n${i + 1}`, heading: n.heading, level: n.level, text: text.slice(n.start, n.end) }));
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

// ---------------------------------------------------------------------------------------------
// Lexical evidence (read_skeleton's evidence_aware mode).
// ---------------------------------------------------------------------------------------------


/** Content terms of a text: lower-cased words of 2+ characters, stop words removed, light plural folding. */
export function contentTerms(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}_]+(?:[.'-][\p{L}\p{N}_]+)*/gu)) {
    let w = m[0];
    if (w.length < 2 || STOPWORDS.has(w)) continue;
    if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
    else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
    out.add(w);
  }
  return out;
}

/** Below this share of the query's content terms in the best node, evidence is insufficient. */
export const EVIDENCE_MIN_COVERAGE = 0.5;

export interface EvidenceReport {
  query_terms: string[];
  best_node_id: string | null;
  best_coverage: number;
  matched_terms: string[];
  missing_terms: string[];
  threshold: number;
  evidence_insufficient: boolean;
}

/**
 * The evidence rule: the query's content terms are matched against each node's terms; the best node's
 * coverage (share of query terms it contains) must reach EVIDENCE_MIN_COVERAGE, and at least one term
 * must match anywhere; otherwise evidence_insufficient is true. A query without content terms is
 * insufficient by definition.
 */
export function evidenceFor(query: string, nodes: { node_id: string; heading: string | null; content: string }[]): EvidenceReport {
  const q = [...contentTerms(query)];
  let best: { id: string | null; coverage: number; matched: string[] } = { id: null, coverage: 0, matched: [] };
  const anywhere = new Set<string>();
  for (const node of nodes) {
    const t = contentTerms(`${node.heading ?? ''}\n${node.content}`);
    const matched = q.filter((w) => t.has(w));
    matched.forEach((w) => anywhere.add(w));
    const coverage = q.length ? matched.length / q.length : 0;
    if (coverage > best.coverage) best = { id: node.node_id, coverage, matched };
  }
  return {
    query_terms: q,
    best_node_id: best.id,
    best_coverage: Math.round(best.coverage * 1000) / 1000,
    matched_terms: best.matched,
    missing_terms: q.filter((w) => !anywhere.has(w)),
    threshold: EVIDENCE_MIN_COVERAGE,
    evidence_insufficient: q.length === 0 || best.coverage < EVIDENCE_MIN_COVERAGE,
  };
}

// ---------------------------------------------------------------------------------------------
// Per-node fidelity (modulate_region).
// ---------------------------------------------------------------------------------------------

export const REGION_LEVELS = ['ABSTRACT', 'OUTLINE', 'STRUCTURE', 'DETAILED', 'RAW'] as const;
export type RegionLevel = (typeof REGION_LEVELS)[number];
/** About this many tokens per node at each level (RAW: the full node). */
export const REGION_BUDGET: Record<Exclude<RegionLevel, 'RAW'>, number> = { ABSTRACT: 10, OUTLINE: 30, STRUCTURE: 50, DETAILED: 100 };

/** The text engine's levels, most aggressive first (raw is never a compression). */
const LEVELS = FIDELITIES.filter((f): f is Exclude<Fidelity, 'raw'> => f !== 'raw');

export type NodePlan =
  | { kind: 'verbatim' }
  | { kind: 'trim' }
  | { kind: 'compress'; fidelity: Exclude<Fidelity, 'raw'> };

/**
 * How one node reaches its budget: verbatim when it already fits; the engine at the largest fidelity
 * whose share stays within the budget; a word-boundary trim (heading first) when even the engine's
 * floor is above the budget (ABSTRACT, or small nodes).
 */
export function planNode(tokens: number, budget: number): NodePlan {
  if (tokens <= budget) return { kind: 'verbatim' };
  let pick: Exclude<Fidelity, 'raw'> | null = null;
  for (const fidelity of LEVELS) if (budgetFor(tokens, fidelity) <= budget * 1.15) pick = fidelity;
  return pick ? { kind: 'compress', fidelity: pick } : { kind: 'trim' };
}

/**
 * Cuts text to about `budget` tokens at a word boundary, estimating tokens from the node's own
 * characters-per-token ratio; keeps the heading line first when there is one.
 */
export function trimToBudget(text: string, heading: string | null, budget: number, charsPerToken: number): string {
  const limit = Math.max(8, Math.floor(budget * charsPerToken));
  const body = text.replace(/^ {0,3}#{1,6}[ \t]+.*(\r?\n)?/, '').replace(/\s+/g, ' ').trim();
  const lead = heading ? `${heading}: ` : '';
  const whole = `${lead}${body}`;
  if (whole.length <= limit) return whole;
  const cut = whole.slice(0, limit);
  const space = cut.lastIndexOf(' ');
  return `${(space > limit * 0.5 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')} …`;
}

// ---------------------------------------------------------------------------------------------
// Persistence (owner-scoped: another user's file_id reads as absent).
// ---------------------------------------------------------------------------------------------

export interface DocumentRow {
  id: string;
  name: string | null;
  source: 'inline' | 'url';
  source_url: string | null;
  file_path: string | null;
  content_hash: string;
  metadata: Record<string, unknown>;
  node_count: number;
  total_tokens: number;
  created_at: Date;
  updated_at: Date;
}

export interface NodeRow {
  ordinal: number;
  node_id: string;
  heading: string | null;
  level: number;
  content: string;
  tokens: number;
}

export interface NewDocument {
  userId: string;
  keyId: string | null;
  projectId: string | null;
  name: string | null;
  source: 'inline' | 'url';
  sourceUrl: string | null;
  filePath: string | null;
  content: string;
  metadata: Record<string, unknown>;
  nodes: (SplitNode & { tokens: number })[];
}

const DOC_COLUMNS = 'id, name, source, source_url, file_path, content_hash, metadata, node_count, total_tokens, created_at, updated_at';

function parseMetadata(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return (value as Record<string, unknown>) ?? {};
}

function normalise(row: DocumentRow): DocumentRow {
  return { ...row, metadata: parseMetadata(row.metadata) };
}

export async function findDocumentByPath(db: Queryable, userId: string, filePath: string): Promise<DocumentRow | null> {
  const [row] = await db.query<DocumentRow>(`select ${DOC_COLUMNS} from documents where user_id = $1 and file_path = $2`, [userId, filePath]);
  return row ? normalise(row) : null;
}

/**
 * Stores a document and its nodes. With a file_path already known for this owner the document is
 * replaced in place (same file_id): 'unchanged' when the content hash is identical, else 'updated';
 * metadata given again is merged over the stored metadata.
 */
export async function saveDocument(
  db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
  doc: NewDocument,
): Promise<{ row: DocumentRow; status: 'created' | 'updated' | 'unchanged' }> {
  try {
    return await saveOnce(db, doc);
  } catch (err) {
    // Two first ingests of the same file_path raced on the unique index: the loser now finds the row.
    if ((err as { code?: string }).code === '23505' && doc.filePath !== null) return saveOnce(db, doc);
    throw err;
  }
}

async function saveOnce(
  db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
  doc: NewDocument,
): Promise<{ row: DocumentRow; status: 'created' | 'updated' | 'unchanged' }> {
  const hash = contentHash(doc.content);
  const total = doc.nodes.reduce((s, n) => s + n.tokens, 0);
  return db.transaction(async (tx) => {
    let id: string | null = null;
    let status: 'created' | 'updated' | 'unchanged' = 'created';
    if (doc.filePath !== null) {
      const [existing] = await tx.query<{ id: string; content_hash: string }>(
        'select id, content_hash from documents where user_id = $1 and file_path = $2 for update',
        [doc.userId, doc.filePath],
      );
      if (existing) {
        id = existing.id;
        status = existing.content_hash === hash ? 'unchanged' : 'updated';
      }
    }
    if (status === 'unchanged') {
      await tx.query('update documents set updated_at = now(), metadata = metadata || $3::text::jsonb, name = coalesce($4, name) where id = $1 and user_id = $2', [
        id, doc.userId, JSON.stringify(doc.metadata), doc.name,
      ]);
    } else if (id) {
      await tx.query('delete from document_nodes where document_id = $1', [id]);
      await tx.query(
        `update documents set name = coalesce($3, name), source = $4, source_url = $5, content = $6, content_hash = $7, metadata = metadata || $8::text::jsonb,
           node_count = $9, total_tokens = $10, key_id = $11, updated_at = now() where id = $1 and user_id = $2`,
        [id, doc.userId, doc.name, doc.source, doc.sourceUrl, doc.content, hash, JSON.stringify(doc.metadata), doc.nodes.length, total, doc.keyId],
      );
    } else {
      const [row] = await tx.query<{ id: string }>(
        `insert into documents (user_id, key_id, project_id, name, source, source_url, file_path, content, content_hash, metadata, node_count, total_tokens)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text::jsonb, $11, $12) returning id`,
        [doc.userId, doc.keyId, doc.projectId, doc.name, doc.source, doc.sourceUrl, doc.filePath, doc.content, hash, JSON.stringify(doc.metadata), doc.nodes.length, total],
      );
      id = row!.id;
    }
    if (status !== 'unchanged') {
      const ROWS = 500;
      for (let i = 0; i < doc.nodes.length; i += ROWS) {
        const chunk = doc.nodes.slice(i, i + ROWS);
        const params: unknown[] = [];
        const values = chunk.map((n, j) => {
          params.push(id, i + j, n.id, n.heading, n.level, n.text, n.tokens);
          const b = j * 7;
          return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7})`;
        });
        await tx.query(`insert into document_nodes (document_id, ordinal, node_id, heading, level, content, tokens) values ${values.join(', ')}`, params);
      }
    }
    const [row] = await tx.query<DocumentRow>(`select ${DOC_COLUMNS} from documents where id = $1`, [id]);
    return { row: normalise(row!), status };
  });
}

export async function getDocument(db: Queryable, userId: string, id: string): Promise<DocumentRow | null> {
  const [row] = await db.query<DocumentRow>(`select ${DOC_COLUMNS} from documents where id = $1 and user_id = $2`, [id, userId]);
  return row ? normalise(row) : null;
}

export async function getDocumentContent(db: Queryable, userId: string, id: string): Promise<string | null> {
  const [row] = await db.query<{ content: string }>('select content from documents where id = $1 and user_id = $2', [id, userId]);
  return row?.content ?? null;
}

/** Nodes of an owned document, optionally only the given node ids (in document order). */
export async function getNodes(db: Queryable, userId: string, id: string, nodeIds?: string[]): Promise<NodeRow[]> {
  const filter = nodeIds ? 'and n.node_id = any($3::text[])' : '';
  return db.query<NodeRow>(
    `select n.ordinal, n.node_id, n.heading, n.level, n.content, n.tokens
       from document_nodes n join documents d on d.id = n.document_id
      where d.id = $1 and d.user_id = $2 ${filter} order by n.ordinal`,
    nodeIds ? [id, userId, nodeIds] : [id, userId],
  );
}

/** How many of a user's ingested documents were last updated more than a week ago (check_environment). */
export async function staleDocumentCount(db: Queryable, userId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(`select count(*)::int as n from documents where user_id = $1 and updated_at < now() - interval '7 days'`, [userId]);
  return row!.n;
}

export async function listDocuments(db: Queryable, userId: string, limit: number, offset: number): Promise<{ rows: DocumentRow[]; total: number }> {
  const rows = await db.query<DocumentRow>(
    `select ${DOC_COLUMNS} from documents where user_id = $1 order by created_at desc, id limit $2 offset $3`,
    [userId, limit, offset],
  );
  const [count] = await db.query<{ n: number }>('select count(*)::int as n from documents where user_id = $1', [userId]);
  return { rows: rows.map(normalise), total: count!.n };
}

export async function deleteDocument(db: Queryable, userId: string, id: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>('delete from documents where id = $1 and user_id = $2 returning id', [id, userId]);
  return rows.length > 0;
}

export interface DocumentStats {
  document_count: number;
  node_count: number;
  total_tokens: number;
  total_characters: number;
  by_source: Record<string, number>;
  tracked_files: number;
  oldest_ingested_at: string | null;
  newest_ingested_at: string | null;
  stale_documents: number;
}

export async function documentStats(db: Queryable, userId: string): Promise<DocumentStats> {
  const [row] = await db.query<{
    documents: number; nodes: number; tokens: number; chars: number; tracked: number; oldest: Date | null; newest: Date | null;
    inline: number; url: number; stale: number;
  }>(
    `select count(*)::int as documents, coalesce(sum(node_count), 0)::int as nodes, coalesce(sum(total_tokens), 0)::int as tokens,
            coalesce(sum(length(content)), 0)::int as chars, count(file_path)::int as tracked,
            min(created_at) as oldest, max(created_at) as newest,
            count(*) filter (where source = 'inline')::int as inline, count(*) filter (where source = 'url')::int as url,
            count(*) filter (where updated_at < now() - interval '7 days')::int as stale
       from documents where user_id = $1`,
    [userId],
  );
  const r = row!;
  return {
    document_count: r.documents,
    node_count: r.nodes,
    total_tokens: r.tokens,
    total_characters: r.chars,
    by_source: { inline: r.inline, url: r.url },
    tracked_files: r.tracked,
    oldest_ingested_at: isoOrNull(r.oldest),
    newest_ingested_at: isoOrNull(r.newest),
    stale_documents: r.stale,
  };
}
