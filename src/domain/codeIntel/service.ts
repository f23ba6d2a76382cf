// Code intelligence use cases: ingest a repository into the project's index (parse in the pool,
// store, update the index thread) and query it (gc_defs, gc_refs, gc_callers, …).
import type { Principal } from '../../auth/principal.js';
import type { QueryMethod } from '../../../workers/codeIntel/indexThread.js';
import type { RepoFileAnalysed, RepoFileInput } from '../../../workers/codeIntel/tasks.js';
import type { Call } from '../call.js';
import { runOnThread } from '../compute.js';
import { DomainError, invalidInput } from '../errors.js';
import { resolveProject } from '../knowledge/items.js';
import type { Services } from '../../services.js';
import { batchesBySize } from '../../lib/batches.js';

/** A file larger than this is skipped (reported, not indexed). */
export const MAX_FILE_CHARS = 1_000_000;
/** Per call: files and their total characters (an MCP body is at most 8 MB). */
export const MAX_FILES_PER_CALL = 2000;
export const MAX_TOTAL_CHARS = 8_000_000;
export const MAX_PATH_CHARS = 1024;

export interface SkippedFile {
  path: string;
  reason: 'invalid_path' | 'too_large' | 'not_text' | 'analysis_failed' | 'duplicate';
  detail: string;
}

/**
 * A repository-relative path, normalised (`\` -> `/`, leading `./` dropped), or why it is refused:
 * absolute paths, drive letters, `..` segments (path traversal), control characters, empty segments.
 */
export function normalisePath(raw: string): { path: string } | { error: string } {
  if (raw.length === 0 || raw.length > MAX_PATH_CHARS) return { error: `path must be 1-${MAX_PATH_CHARS} characters` };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return { error: 'path contains control characters' };
  let p = raw.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.startsWith('~')) return { error: 'path must be relative to the repository root' };
  while (p.startsWith('./')) p = p.slice(2);
  const segs = p.split('/');
  if (segs.some((s) => s === '..')) return { error: 'path traversal (..) is not allowed' };
  if (segs.some((s) => s === '' || s === '.')) return { error: 'path has an empty or "." segment' };
  return { path: p };
}

/** The key's project (needsProject guarantees one is bound); it must still be the caller's. */
export async function boundCodeProject(services: Services, principal: Principal): Promise<string> {
  const project = await resolveProject(services.db, principal, principal.projectId!).catch(() => null);
  if (!project) throw new DomainError('forbidden', 'The project this key is bound to no longer exists', { code: 'no_project_selected' });
  return project.id;
}


export interface IngestInput {
  files: RepoFileInput[];
  deleted: string[];
}

/**
 * gc_orient (with files or deleted): parse the given files (unchanged content is skipped by hash) and store them,
 * remove the deleted paths, and update the project's in-memory index incrementally.
 * Bad files never fail the call: they are listed in `skipped` with a reason.
 */
export async function ingestRepository(call: Call, project: string, input: IngestInput) {
  const started = performance.now();
  const hub = call.services.codeIntel;
  const skipped: SkippedFile[] = [];
  const byPath = new Map<string, RepoFileInput>();
  for (const f of input.files) {
    const n = normalisePath(f.path);
    if ('error' in n) {
      skipped.push({ path: f.path, reason: 'invalid_path', detail: n.error });
      continue;
    }
    if (f.content.length > MAX_FILE_CHARS) {
      skipped.push({ path: n.path, reason: 'too_large', detail: `${f.content.length} characters; files over ${MAX_FILE_CHARS} are not indexed` });
      continue;
    }
    if (byPath.has(n.path)) skipped.push({ path: n.path, reason: 'duplicate', detail: 'the same path was given twice; the last one is indexed' });
    byPath.set(n.path, { path: n.path, content: f.content, ...(f.language ? { language: f.language } : {}) });
  }
  const deleted: string[] = [];
  input.deleted.forEach((raw, i) => {
    const n = normalisePath(raw);
    if ('error' in n) throw invalidInput(`deleted[${i}]: ${n.error}`, [{ loc: ['deleted', i], msg: n.error, type: 'value_error.path' }]);
    if (byPath.has(n.path)) throw invalidInput(`${n.path} is both in files and in deleted`, [{ loc: ['deleted', i], msg: 'path also in files', type: 'value_error.path' }]);
    deleted.push(n.path);
  });
  const files = [...byPath.values()];
  if (files.length > 0) await call.requireQuota();

  const known = await hub.known(project, files.map((f) => f.path));
  const parts = Math.max(1, call.services.pool.stats().threads * 2);
  const work = files.length ? batchesBySize(files, parts) : [];
  call.expectSteps(work.length);
  const results = await Promise.all(
    work.map((batch) => {
      const subset: Record<string, string> = {};
      for (const f of batch) if (known[f.path]) subset[f.path] = known[f.path]!;
      return call.compute('codeIntelAnalyse', { files: batch, known: subset }, { field: 'files' });
    }),
  );
  const parsedAt = performance.now();
  const analysed: RepoFileAnalysed[] = results.flatMap((r) => r.analysed);
  const unchanged = results.flatMap((r) => r.unchanged);
  for (const r of results) for (const s of r.skipped) skipped.push({ path: s.path, reason: s.reason as SkippedFile['reason'], detail: s.detail });
  hub.counters.filesParsed += analysed.length;

  let commit: Awaited<ReturnType<typeof hub.commit>> | null = null;
  if (analysed.length > 0 || deleted.length > 0) commit = await hub.commit(project, analysed, deleted);
  const status = await hub.status(project);
  call.report({ inputTokens: 0, outputTokens: 0, inputText: files[0]?.path ?? deleted[0] ?? null });
  return {
    generation: commit?.generation ?? status.generation ?? 0,
    indexed: analysed.map((a) => ({ path: a.path, language: a.language, parser: a.parser, units: a.units, parse_errors: a.parse_errors })),
    unchanged: unchanged.length,
    deleted: commit?.deleted ?? [],
    not_found_deleted: deleted.filter((d) => !(commit?.deleted ?? []).includes(d)),
    skipped,
    files: status.files,
    units: status.units,
    edges: commit?.apply.edges ?? null,
    update: commit ? { mode: commit.apply.mode, recomputed_files: commit.apply.recomputed_files, graph_ms: commit.apply.ms } : { mode: 'none' as const },
    timings_ms: { parse: Math.round(parsedAt - started), total: Math.round(performance.now() - started) },
  };
}

/** One query against the project's index (served from the code-intelligence thread's memory), through the thread's door. */
export function queryCodeIndex<T>(call: Call, project: string, method: QueryMethod, args: unknown[]): Promise<T> {
  const hub = call.services.codeIntel;
  return runOnThread(hub.door, () => hub.ask<T>(project, method, args), { signal: call.signal });
}
