// Spec: "Endpoints > Usage and analytics", with "Resources and their fields > Usage event
// (CompressionEvent)" and "Usage aggregates".
import { t, type ContractContext, type ContractFile, type Fields } from '../contract.js';

const FIDELITIES = ['abstract', 'outline', 'balanced', 'detailed', 'raw'] as const;

/** CompressionEvent fields the spec names. */
const EVENT: Fields = {
  id: t.uuid, // "UUID, dashed form"
  fidelity: t.nullable(t.enum(...FIDELITIES)), // "fidelity level used" (advisory MCP calls use none)
  method: t.enum('REST', 'MCP', 'batch', 'mcp_advisory'), // "call method: REST, MCP or batch; value mcp_advisory marks advisory …"
  latency_ms: t.integer, // "integer milliseconds"
  model: t.nullable(t.string), // "model name"
  status: t.string, // "call status, for example success, client_error, timeout"
  tool_name: t.nullable(t.string), // "null for REST compress calls"
  key_id: t.nullable(t.string), // "from the key used"
  environment: t.nullable(t.string),
  input_preview: t.nullable(t.string), // "input preview: only the first line, truncated to 100 characters"
};

const prefixed = (prefix: string, fields: Fields): Fields => Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${prefix}${k}`, v]));

function previewRule(e: { input_preview?: string | null }) {
  if (e.input_preview && (e.input_preview.length > 100 || e.input_preview.includes('\n'))) throw new Error(`input_preview should be one line of at most 100 characters: ${JSON.stringify(e.input_preview)}`);
}

async function restEventId(c: ContractContext): Promise<string> {
  const list = await c.ok('GET', '/v1/usage/events?method=REST&page_size=1');
  const id = list.items?.[0]?.id;
  if (!id) throw new Error('fixture: no REST usage event to read');
  return id;
}

const days = (fields: Fields = {}) => ({ query: { days: 7 }, fields });

export default {
  area: 'Usage and analytics',
  routes: [
    {
      method: 'GET',
      path: '/v1/usage',
      spec: 'UsageResponse: monthly compression count, original token total, tokens saved for the current calendar month',
      status: 200,
      note: 'Only "tokens saved" maps to one field name; the count and the original total are named in prose only.',
      fields: { tokens_saved: t.integer },
    },
    {
      method: 'GET',
      path: '/v1/usage/activation',
      spec: 'Activation histogram (admin): period = all_time; buckets keyed by plan (free, pro, team, enterprise), each with integer counts for keys <1h, 1h-24h, 1d-7d, never; generated_at timestamp',
      status: 200,
      fields: {
        period: t.const('all_time'),
        buckets: t.object,
        ...Object.fromEntries(['free', 'pro', 'team', 'enterprise'].flatMap((plan) => ['<1h', '1h-24h', '1d-7d', 'never'].map((b) => [`buckets.${plan}["${b}"]`, t.integer]))),
        generated_at: t.timestamp,
      },
    },
    { method: 'GET', path: '/v1/usage/by-model', spec: 'GET /v1/usage/by-model | days | UsageByModelResponse', request: days(), status: 200 },
    { method: 'GET', path: '/v1/usage/by-cache', spec: 'GET /v1/usage/by-cache | days | UsageByCacheResponse', request: days(), status: 200 },
    { method: 'GET', path: '/v1/usage/by-key', spec: 'GET /v1/usage/by-key | days, limit | UsageByKeyResponse (top-N keys by tokens saved)', request: { query: { days: 7, limit: 3 } }, status: 200 },
    {
      method: 'GET',
      path: '/v1/usage/by-tool',
      spec: 'UsageByToolResponse (ordered by call count descending; zero-savings calls still count); tool_name null for REST compress calls; aggregated under the label rest-api',
      request: days(),
      status: 200,
      note: 'The row container and its fields are not named by the spec; the label rest-api is.',
      check: (res) => {
        // The shared fixtures compressed over REST: their calls are the rest-api row.
        if (!JSON.stringify(res.json).includes('"rest-api"')) throw new Error('REST compress calls should be aggregated under the label rest-api');
      },
    },
    {
      method: 'GET',
      path: '/v1/usage/by-client',
      spec: 'UsageByClientResponse (grouped by AI client; rows with neither signal fall into bucket other)',
      request: days(),
      status: 200,
      check: (res) => {
        // The suite's calls carry no known client (fetch's User-Agent, an MCP client named contract-*).
        if (!JSON.stringify(res.json).includes('"other"')) throw new Error('calls from no known AI client should fall into bucket other');
      },
    },
    {
      method: 'GET',
      path: '/v1/usage/history',
      spec: 'UsageHistoryResponse: data array with exactly one element per calendar day for the requested days; days without activity are zeros',
      request: { query: { period: 'day', days: 7 } },
      status: 200,
      fields: { data: t.array },
      check: (res) => {
        if (res.json.data.length !== 7) throw new Error(`data should have exactly one element per day (7), has ${res.json.data.length}`);
      },
    },
    {
      method: 'GET',
      path: '/v1/usage/events',
      spec: 'GET /v1/usage/events | page, page_size, fidelity, method, exclude_advisory, … | EventsResponse (paginated) of CompressionEvent',
      request: { query: { page: 1, page_size: 50 } },
      status: 200,
      note: 'The page container is not named by the spec; its items are CompressionEvent.',
      fields: prefixed('items[].', EVENT),
      check: (res) => res.json.items.forEach(previewRule),
    },
    {
      method: 'GET',
      path: '/v1/usage/events/:event_id',
      spec: 'GET /v1/usage/events/{event_id} | - | CompressionEvent; 404 when not owned by the caller',
      request: async (c) => ({ params: { event_id: await restEventId(c) } }),
      status: 200,
      // A REST compression's event: method REST, tool_name null.
      fields: { ...EVENT, method: t.const('REST'), tool_name: t.null, fidelity: t.enum(...FIDELITIES) },
      check: (res) => previewRule(res.json),
    },
    {
      method: 'GET',
      path: '/v1/usage/latency-percentiles',
      spec: 'LatencyPercentilesResponse: p50, p95, p99 of latency_ms within the window',
      request: { query: { window_hours: 24 } },
      status: 200,
      fields: { p50: t.number, p95: t.number, p99: t.number },
    },
  ],
} satisfies ContractFile;
