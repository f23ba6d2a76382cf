// Signed uploads: an upload is issued once per (project, idempotency_key); its URL, served by this
// service, carries an expiring HMAC-SHA256 signature; completing it ingests the content.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { conflict, forbidden, notFound, tooLarge } from '../errors.js';
import type { Services } from '../../services.js';
import type { Queryable } from '../../store/db.js';
import { checkVisibility, ingestItem } from './service.js';
import { itemById, parseJsonb, UUID, type ItemRow } from './items.js';
import { iso } from '../../lib/time.js';

export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
export const UPLOAD_TTL_SECONDS = 15 * 60;

export interface UploadRow {
  id: string;
  project_id: string;
  owner_id: string;
  key_id: string | null;
  idempotency_key: string;
  name: string;
  type: string;
  content_type: string;
  metadata: unknown;
  visibility: string;
  max_bytes: number;
  status: 'issued' | 'uploaded' | 'completed';
  content: string | null;
  size_bytes: number | null;
  item_id: string | null;
  expires_at: Date;
  created_at: Date;
}

const secrets = new WeakMap<Queryable, Promise<Buffer>>();

/** The service-wide HMAC key, created once in the database so every instance signs alike. */
function uploadSecret(db: Queryable): Promise<Buffer> {
  let s = secrets.get(db);
  if (!s) {
    s = (async () => {
      await db.query(`insert into kb_secrets (name, value) values ('upload_hmac', $1) on conflict (name) do nothing`, [randomBytes(32)]);
      const [row] = await db.query<{ value: Uint8Array }>(`select value from kb_secrets where name = 'upload_hmac'`);
      return Buffer.from(row!.value);
    })();
    s.catch(() => secrets.delete(db));
    secrets.set(db, s);
  }
  return s;
}

function sign(secret: Buffer, uploadId: string, expires: number): string {
  return createHmac('sha256', secret).update(`kb-upload:${uploadId}:${expires}`).digest('base64url');
}

export interface IssueInput {
  idempotency_key: string;
  name: string;
  type?: string | null;
  content_type?: string | null;
  size_bytes?: number | null;
  metadata?: Record<string, unknown> | null;
  visibility?: string | null;
}

export async function issueUpload(
  services: Services,
  principal: Principal,
  projectId: string,
  input: IssueInput,
  baseUrl: string,
): Promise<{ row: UploadRow; created: boolean; uploadUrl: string; expires: number }> {
  const visibility = checkVisibility(input.visibility) ?? 'project';
  const maxBytes = input.size_bytes ?? UPLOAD_MAX_BYTES;
  const expiresAt = new Date(Date.now() + UPLOAD_TTL_SECONDS * 1000);
  const db = services.db;
  const [inserted] = await db.query<UploadRow>(
    `insert into kb_uploads (project_id, owner_id, key_id, idempotency_key, name, type, content_type, metadata, visibility, max_bytes, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9, $10, $11)
     on conflict (project_id, idempotency_key) do nothing returning *`,
    [projectId, principal.userId, principal.keyId, input.idempotency_key, input.name, input.type ?? 'document', input.content_type ?? 'text/plain',
      JSON.stringify(input.metadata ?? {}), visibility, maxBytes, expiresAt],
  );
  let row = inserted;
  if (!row) {
    // Same idempotency key: the same upload. An unfinished one gets a fresh expiry (and URL).
    [row] = await db.query<UploadRow>(
      `update kb_uploads set expires_at = case when status = 'completed' then expires_at else greatest(expires_at, $3) end
        where project_id = $1 and idempotency_key = $2 returning *`,
      [projectId, input.idempotency_key, expiresAt],
    );
  }
  const expires = Math.floor(new Date(row!.expires_at).getTime() / 1000);
  const secret = await uploadSecret(db);
  const uploadUrl = `${baseUrl}/v1/projects/${projectId}/knowledge/uploads/${row!.id}/content?expires=${expires}&signature=${sign(secret, row!.id, expires)}`;
  return { row: row!, created: !!inserted, uploadUrl, expires };
}

/** The signed PUT: checks signature, expiry and size, stores the content. */
export async function receiveUpload(
  services: Services,
  projectId: string,
  uploadId: string,
  query: { expires?: string; signature?: string },
  content: string,
): Promise<UploadRow> {
  const expires = Number(query.expires);
  const given = Buffer.from(query.signature ?? '', 'base64url');
  const denied = () => forbidden('Invalid or expired upload signature');
  if (!UUID.test(uploadId) || !UUID.test(projectId) || !Number.isInteger(expires) || given.length === 0) throw denied();
  const secret = await uploadSecret(services.db);
  const expected = Buffer.from(sign(secret, uploadId, expires), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw denied();
  if (expires * 1000 < Date.now()) throw denied();
  const [row] = await services.db.query<UploadRow>('select * from kb_uploads where id = $1 and project_id = $2', [uploadId, projectId]);
  if (!row) throw notFound(`Upload '${uploadId}' not found`);
  if (row.status === 'completed') throw conflict('Upload already completed');
  const size = Buffer.byteLength(content, 'utf8');
  if (size > row.max_bytes) throw tooLarge(`Upload exceeds its size limit of ${row.max_bytes} bytes`);
  const [updated] = await services.db.query<UploadRow>(
    `update kb_uploads set content = $2, size_bytes = $3, status = 'uploaded' where id = $1 and status <> 'completed' returning *`,
    [uploadId, content, size],
  );
  if (!updated) throw conflict('Upload already completed');
  return updated;
}

/** Completing ingests the uploaded content as a new item; completing again returns that item. */
export async function completeUpload(
  services: Services,
  principal: Principal,
  projectId: string,
  uploadId: string,
  overrides: { name?: string | null; metadata?: Record<string, unknown> | null },
): Promise<{ row: UploadRow; item: ItemRow }> {
  if (!UUID.test(uploadId)) throw notFound(`Upload '${uploadId}' not found`);
  const [row] = await services.db.query<UploadRow>('select * from kb_uploads where id = $1 and project_id = $2', [uploadId, projectId]);
  if (!row) throw notFound(`Upload '${uploadId}' not found`);
  if (row.status === 'completed' && row.item_id) {
    const item = await itemById(services.db, row.item_id);
    if (item) return { row, item };
  }
  if (row.status !== 'uploaded' || row.content === null) throw conflict('Nothing has been uploaded to this upload URL yet');
  // Claim the upload first so two concurrent completes create one item.
  const [claimed] = await services.db.query<UploadRow>(
    `update kb_uploads set status = 'completed' where id = $1 and status = 'uploaded' returning *`,
    [uploadId],
  );
  if (!claimed) return completeUpload(services, principal, projectId, uploadId, overrides);
  try {
    const { item } = await ingestItem(
      services,
      principal,
      projectId,
      {
        name: overrides.name ?? row.name,
        text: row.content,
        type: row.type,
        metadata: overrides.metadata ?? parseJsonb(row.metadata),
        visibility: row.visibility,
      },
      'upload',
    );
    const [done] = await services.db.query<UploadRow>('update kb_uploads set item_id = $2 where id = $1 returning *', [uploadId, item.id]);
    return { row: done!, item };
  } catch (err) {
    await services.db.query(`update kb_uploads set status = 'uploaded' where id = $1`, [uploadId]);
    throw err;
  }
}

export function uploadResponse(row: UploadRow) {
  return {
    upload_id: row.id,
    idempotency_key: row.idempotency_key,
    name: row.name,
    status: row.status,
    max_bytes: row.max_bytes,
    size_bytes: row.size_bytes,
    item_id: row.item_id,
    expires_at: iso(row.expires_at),
  };
}
