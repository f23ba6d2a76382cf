// The usage dashboard and the one analytics route it added (beyond the spec; docs/dashboard.md).
import { t, type ContractFile } from '../contract.js';

export default {
  area: 'Usage dashboard (outside the spec)',
  routes: [
    {
      method: 'GET',
      path: '/dashboard',
      spec: 'not in the spec',
      outsideSpec: 'The usage dashboard page (issue 24): sign in with an API key held in memory; charts from the /v1/usage routes (docs/dashboard.md).',
      request: { key: null },
      status: 200,
      body: 'text',
      contentType: 'text/html',
      text: [/<title>Usage dashboard/],
    },
    {
      method: 'GET',
      path: '/dashboard/:asset',
      spec: 'not in the spec',
      outsideSpec: "The dashboard's script, styles and its chart library (uPlot), from an allow-list; anything else is 404.",
      request: { key: null, params: { asset: 'app.js' } },
      status: 200,
      body: 'text',
      contentType: 'text/javascript',
      text: [/use strict/],
    },
    {
      method: 'GET',
      path: '/favicon.ico',
      spec: 'not in the spec',
      outsideSpec: "Browsers ask every origin for /favicon.ico; the dashboard's SVG icon answers it (issue 50).",
      request: { key: null },
      status: 200,
      body: 'text',
      contentType: 'image/svg+xml',
      text: [/<svg/],
    },
    {
      method: 'GET',
      path: '/v1/usage/by-fidelity',
      spec: 'not in the spec (the spec has by-model, by-key, by-tool, by-client, by-cache)',
      outsideSpec: "Savings per fidelity level, for the dashboard's by-fidelity chart; same shape and query as /v1/usage/by-model (docs/accounts.md).",
      request: { query: { days: 30 } },
      status: 200,
      fields: { days: t.integer, data: t.array },
    },
  ],
} satisfies ContractFile;
