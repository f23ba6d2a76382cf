import type { Queryable } from '../../store/db.js';

export interface ProfileRow {
  id: number;
  user_id: string;
  name: string;
  description: string | null;
  fidelity: string;
  skeleton_ratio: number | null;
  chunk_size: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface ProfileFields {
  name: string;
  description: string | null;
  fidelity: string;
  skeleton_ratio: number | null;
  chunk_size: number | null;
}

const MAX_ID = 2_147_483_647;
const EDITABLE = ['name', 'description', 'fidelity', 'skeleton_ratio', 'chunk_size'] as const;

export async function listProfiles(db: Queryable, userId: string): Promise<ProfileRow[]> {
  return db.query<ProfileRow>('select * from fidelity_profiles where user_id = $1 order by created_at desc, id desc', [userId]);
}

export async function createProfile(db: Queryable, userId: string, input: ProfileFields): Promise<ProfileRow> {
  const [row] = await db.query<ProfileRow>(
    `insert into fidelity_profiles (user_id, name, description, fidelity, skeleton_ratio, chunk_size)
     values ($1, $2, $3, $4, $5, $6) returning *`,
    [userId, input.name, input.description, input.fidelity, input.skeleton_ratio, input.chunk_size],
  );
  return row!;
}

/** Owner-scoped: another user's id (or one outside int4) is simply not found. */
export async function getProfile(db: Queryable, userId: string, id: number): Promise<ProfileRow | null> {
  if (id > MAX_ID) return null;
  const [row] = await db.query<ProfileRow>('select * from fidelity_profiles where id = $1 and user_id = $2', [id, userId]);
  return row ?? null;
}

/** Only present fields change (UpdateProfileRequest). */
export async function updateProfile(db: Queryable, userId: string, id: number, changes: Partial<ProfileFields>): Promise<ProfileRow | null> {
  if (id > MAX_ID) return null;
  const params: unknown[] = [id, userId];
  const sets = ['updated_at = now()'];
  for (const column of EDITABLE) {
    if (changes[column] === undefined) continue;
    params.push(changes[column]);
    sets.push(`${column} = $${params.length}`);
  }
  const [row] = await db.query<ProfileRow>(
    `update fidelity_profiles set ${sets.join(', ')} where id = $1 and user_id = $2 returning *`,
    params,
  );
  return row ?? null;
}

export async function deleteProfile(db: Queryable, userId: string, id: number): Promise<boolean> {
  if (id > MAX_ID) return false;
  const rows = await db.query('delete from fidelity_profiles where id = $1 and user_id = $2 returning id', [id, userId]);
  return rows.length > 0;
}
