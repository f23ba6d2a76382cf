// Spec: "Endpoints > Leads, licenses, metering", with "Other records > Lead, License".
import type { ContractContext, ContractFile } from '../contract.js';

async function licenseKey(c: ContractContext): Promise<string> {
  c.fx.license_key ??= (await c.ok('POST', '/v1/licenses/generate', { customer_email: 'ops@contract.test', seats: 3 })).license_key;
  return c.fx.license_key;
}

export default {
  area: 'Leads, licenses, metering',
  routes: [
    {
      method: 'POST',
      path: '/v1/leads',
      spec: 'POST /v1/leads | CreateLeadRequest -> LeadResponse | 201; stores a lead and notifies the sales inbox',
      request: { body: { email: 'cto@contract.test', name: 'Ada', company: 'Contract Co', message: 'Forty seats, self-hosted.' } },
      status: 201,
      note: 'LeadResponse fields are not shown by the spec.',
    },
    {
      method: 'POST',
      path: '/v1/licenses/generate',
      spec: 'POST /v1/licenses/generate | GenerateLicenseRequest -> GenerateLicenseResponse | 201; signed self-hosted license, stored and emailed',
      request: { body: { customer_email: 'selfhost@contract.test', seats: 5, expires_in_days: 30 } },
      status: 201,
      note: 'GenerateLicenseResponse fields are not shown by the spec.',
    },
    {
      method: 'POST',
      path: '/v1/licenses/validate',
      spec: 'POST /v1/licenses/validate | ValidateLicenseRequest -> LicenseValidationResponse | 200; public; verifies signature and expiry',
      request: async (c) => ({ key: null, body: { license_key: await licenseKey(c) } }),
      status: 200,
      note: 'LicenseValidationResponse fields are not shown by the spec.',
    },
    {
      method: 'POST',
      path: '/v1/metering',
      spec: 'POST /v1/metering | MeteringReportRequest -> MeteringAcceptedResponse | 202; Authorization header carries the license key',
      request: async (c) => ({
        key: null,
        headers: { authorization: `Bearer ${await licenseKey(c)}` },
        body: { period: new Date().toISOString().slice(0, 7), compressions: 12, tokens_saved: 3400, instance_id: 'contract-node-1' },
      }),
      status: 202,
      note: 'MeteringReportRequest/MeteringAcceptedResponse fields are not shown by the spec.',
    },
  ],
} satisfies ContractFile;
