// Spec: "Endpoints > Projects", with "Resources and their fields > Projects".
import { t, type ContractContext, type ContractFile } from '../contract.js';

async function freshProject(c: ContractContext, name: string): Promise<string> {
  return (await c.ok('POST', '/v1/projects', { name })).project_id;
}

export default {
  area: 'Projects',
  routes: [
    {
      method: 'GET',
      path: '/v1/projects',
      spec: 'GET /v1/projects -> ProjectListResponse | 200; newest first; project id is a UUID; a project listing row includes current_period_compressions (count of usage events in the current calendar month for that project)',
      status: 200,
      note: 'The list container is not named by the spec.',
      fields: { 'projects[].project_id': t.uuid, 'projects[].current_period_compressions': t.integer },
    },
    {
      method: 'POST',
      path: '/v1/projects',
      spec: 'POST /v1/projects | CreateProjectRequest -> ProjectResponse | 201; requires Team or Enterprise plan',
      request: { body: { name: 'contract-new-project' } },
      status: 201,
      fields: { project_id: t.uuid },
    },
    {
      method: 'GET',
      path: '/v1/projects/:project_id',
      spec: 'GET /v1/projects/{project_id} -> ProjectDetailResponse (adds aggregated usage stats) | 200',
      request: (c) => ({ params: { project_id: c.fx.project_id } }),
      status: 200,
      fields: { project_id: t.uuid },
    },
    {
      method: 'PUT',
      path: '/v1/projects/:project_id',
      spec: 'PUT /v1/projects/{project_id} | UpdateProjectRequest -> ProjectResponse | 200; partial update',
      request: async (c) => ({ params: { project_id: await freshProject(c, 'contract-put') }, body: { description: 'renamed by the contract suite' } }),
      status: 200,
      fields: { project_id: t.uuid },
    },
    {
      method: 'DELETE',
      path: '/v1/projects/:project_id',
      spec: 'DELETE /v1/projects/{project_id} | -> JSON object | 200; caller must own it',
      request: async (c) => ({ params: { project_id: await freshProject(c, 'contract-delete') } }),
      status: 200,
    },
  ],
} satisfies ContractFile;
