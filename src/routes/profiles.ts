import { z } from 'zod';
import { createProfile, deleteProfile, getProfile, listProfiles, updateProfile, type ProfileRow } from '../domain/identity/profiles.js';
import { invalidInput, notFound } from '../domain/errors.js';
import { defineRoute } from '../http/route.js';
import { FIDELITIES } from '../../workers/shared/fidelity.js';
import { fidelity, int, isoTime } from './schemas.js';

function profileResponse(row: ProfileRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    fidelity: row.fidelity,
    skeleton_ratio: row.skeleton_ratio,
    chunk_size: row.chunk_size,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const Profile = z.object({
  id: int,
  name: z.string(),
  description: z.string().nullable(),
  fidelity: z.enum(FIDELITIES),
  skeleton_ratio: z.number().nullable(),
  chunk_size: int.nullable(),
  created_at: isoTime,
  updated_at: isoTime,
});

const fields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().max(1000).nullable(),
  fidelity,
  skeleton_ratio: z.number().gt(0).max(1).nullable(),
  chunk_size: z.number().int().min(16).max(65_536).nullable(),
};

const CreateProfileBody = z
  .object({
    name: fields.name,
    description: fields.description.default(null),
    fidelity: fields.fidelity.default('balanced'),
    skeleton_ratio: fields.skeleton_ratio.default(null),
    chunk_size: fields.chunk_size.default(null),
  })
  .strict();

const UpdateProfileBody = z
  .object({
    name: fields.name.optional(),
    description: fields.description.optional(),
    fidelity: fields.fidelity.optional(),
    skeleton_ratio: fields.skeleton_ratio.optional(),
    chunk_size: fields.chunk_size.optional(),
  })
  .strict();

/** profile_id is an integer path parameter: anything else is a 422 on the path. */
function profileId(raw: string | undefined): number {
  if (!raw || !/^\d{1,12}$/.test(raw)) {
    throw invalidInput('Invalid input', [{ loc: ['path', 'profile_id'], msg: 'Input should be a valid integer', type: 'int_parsing' }]);
  }
  return Number(raw);
}

const profileNotFound = (id: number) => notFound(`Profile ${id} not found`);

export const profileRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/profiles',
    auth: 'key',
    response: z.object({ profiles: z.array(Profile), total: int }),
    async handler({ principal, services }) {
      const rows = await listProfiles(services.db, principal.userId);
      return { body: { profiles: rows.map(profileResponse), total: rows.length } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/profiles',
    auth: 'key',
    body: CreateProfileBody,
    response: Profile,
    doc: { status: 201 },
    async handler({ body, principal, services }) {
      return { status: 201, body: profileResponse(await createProfile(services.db, principal.userId, body)) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/profiles/:profile_id',
    auth: 'key',
    response: Profile,
    async handler({ params, principal, services }) {
      const id = profileId(params.profile_id);
      const row = await getProfile(services.db, principal.userId, id);
      if (!row) throw profileNotFound(id);
      return { body: profileResponse(row) };
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/profiles/:profile_id',
    auth: 'key',
    body: UpdateProfileBody,
    response: Profile,
    async handler({ body, params, principal, services }) {
      const id = profileId(params.profile_id);
      const row = await updateProfile(services.db, principal.userId, id, body);
      if (!row) throw profileNotFound(id);
      return { body: profileResponse(row) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/profiles/:profile_id',
    auth: 'key',
    doc: { status: 204 },
    async handler({ params, principal, services }) {
      const id = profileId(params.profile_id);
      if (!(await deleteProfile(services.db, principal.userId, id))) throw profileNotFound(id);
      return { status: 204 };
    },
  }),
];
