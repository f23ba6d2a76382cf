// Spec: "Endpoints > Shares". The table also lists GET /v1/agents/a2a-peers, GET /v1/batch-queue/{id}
// and GET /v1/governance/audit; entries for the share and A2A routes join here as they are implemented
// (A2A protocol operations the spec does not list belong in a2a-protocol.ts).
import type { ContractFile } from '../contract.js';

export default {
  area: 'Shares (and the platform routes listed with them)',
  routes: [
    {
      method: 'GET',
      path: '/v1/governance/audit',
      spec: 'GET /v1/governance/audit | - | paginated audit log',
      request: { query: { page: 1, page_size: 20 } },
      status: 200,
      note: 'Audit log fields are not shown by the spec.',
    },
  ],
} satisfies ContractFile;
