// Spec: "Endpoints > Profiles", with "Resources and their fields > Fidelity profile" (integer id).
import { t, type ContractContext, type ContractFile } from '../contract.js';

async function freshProfile(c: ContractContext, name: string): Promise<string> {
  return String((await c.ok('POST', '/v1/profiles', { name, fidelity: 'outline' })).id);
}

export default {
  area: 'Profiles',
  setup: async (c) => {
    c.fx.profile_id = await freshProfile(c, 'contract-profile');
  },
  routes: [
    {
      method: 'GET',
      path: '/v1/profiles',
      spec: 'GET /v1/profiles -> ProfileListResponse (newest first) | 200; fidelity profile: integer id, owned by a user',
      status: 200,
      note: 'The list container is not named by the spec.',
      fields: { 'profiles[].id': t.integer },
    },
    {
      method: 'POST',
      path: '/v1/profiles',
      spec: 'POST /v1/profiles | CreateProfileRequest -> ProfileResponse | 201',
      request: { body: { name: 'contract-created-profile', fidelity: 'detailed' } },
      status: 201,
      fields: { id: t.integer },
    },
    {
      method: 'GET',
      path: '/v1/profiles/:profile_id',
      spec: 'GET /v1/profiles/{profile_id} -> ProfileResponse | 200; caller must own it',
      request: (c) => ({ params: { profile_id: c.fx.profile_id } }),
      status: 200,
      fields: { id: t.integer },
    },
    {
      method: 'PUT',
      path: '/v1/profiles/:profile_id',
      spec: 'PUT /v1/profiles/{profile_id} | UpdateProfileRequest -> ProfileResponse | 200; partial update (only present fields change)',
      request: async (c) => ({ params: { profile_id: await freshProfile(c, 'contract-put') }, body: { fidelity: 'abstract' } }),
      status: 200,
      fields: { id: t.integer },
    },
    {
      method: 'DELETE',
      path: '/v1/profiles/:profile_id',
      spec: 'DELETE /v1/profiles/{profile_id} | - | 204',
      request: async (c) => ({ params: { profile_id: await freshProfile(c, 'contract-delete') } }),
      status: 204,
      body: 'none',
    },
  ],
} satisfies ContractFile;
