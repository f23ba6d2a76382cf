// Spec: "Endpoints > Payments", with "Other records > Payment reconciliation envelope".
import { t, type ContractFile } from '../contract.js';

export default {
  area: 'Payments',
  routes: [
    {
      method: 'GET',
      path: '/v1/payments/reconciliation',
      spec: 'Payment reconciliation envelope: events (array), count (int), window {from, to}. Event: id (UUID), user_id (UUID), project_id (UUID or null), facilitator, settlement_status, payment_id (string), amount_charged_micros (int), tokens_saved (int), created_at (UTC timestamp)',
      // The shared fixtures' /v1/compress carried payment-signature headers (test/contract/fixtures.ts).
      request: { query: { limit: 100 } },
      status: 200,
      fields: {
        events: t.array,
        count: t.integer,
        'window.from': t.timestamp,
        'window.to': t.timestamp,
        'events[].id': t.uuid,
        'events[].user_id': t.uuid,
        'events[].project_id': t.nullable(t.uuid),
        'events[].facilitator': t.string,
        'events[].settlement_status': t.string,
        'events[].payment_id': t.string,
        'events[].amount_charged_micros': t.integer,
        'events[].tokens_saved': t.integer,
        'events[].created_at': t.timestamp,
      },
      check: (res) => {
        for (const e of res.json.events) if (!/(Z|\+00:?00)$/.test(e.created_at)) throw new Error(`created_at should be UTC: ${e.created_at}`);
      },
    },
  ],
} satisfies ContractFile;
