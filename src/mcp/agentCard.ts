import { allTools } from './registry.js';

export const AGENT_CARD_VERSION = '1.66.4';
export const API_DESCRIPTION_VERSION = '1.52.14';

/** Extension identifiers are stable URNs: the base URL changes per deployment, the meaning does not. */
export const EXTENSIONS = {
  mcpMapping: 'urn:semantic-compression:a2a:ext:mcp-mapping:v1',
  planTier: 'urn:semantic-compression:a2a:ext:plan-tier:v1',
  shareJws: 'urn:semantic-compression:a2a:ext:share-jws:v1',
  taskPush: 'urn:semantic-compression:a2a:ext:task-push:v1',
  payment: 'urn:semantic-compression:a2a:ext:payment:v1',
} as const;

/** The spec prefixes A2A paths with /a2a/v1 (the JSON-RPC binding lives there). */
const A2A_PATH = '/a2a/v1';

const MODES = ['text/plain', 'application/json'];
const TOOL_MODES = ['application/json', 'text/plain'];

/** The A2A v1.0 agent card, generated from the tool registry: every tool is a skill with the same id. */
export function buildAgentCard(base: string, serviceVersion: string) {
  return {
    name: 'Semantic Compression Service',
    description:
      'Compresses text, source code and tool output for LLM agents: skeletons, ranked sections and query-relevant passages with far fewer tokens.',
    version: AGENT_CARD_VERSION,
    provider: { organization: 'Semantic Compression Service', url: base },
    documentationUrl: `${base}/.well-known/agent-card.json`,
    supportedInterfaces: [
      { url: `${base}/mcp`, protocolBinding: 'MCP', protocolVersion: '1.0', tenant: '' },
      // The A2A protocol's bindings (src/routes/a2a.ts): HTTP+JSON at the base URL as the spec states (its
      // operations are also served under /a2a/v1), JSON-RPC under the spec's A2A prefix.
      { url: base, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
      { url: `${base}${A2A_PATH}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
    ],
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        { uri: EXTENSIONS.mcpMapping, description: 'Each skill id is the name of an MCP tool callable with tools/call at the MCP interface.', required: false, params: { mcp_endpoint: `${base}/mcp` } },
        { uri: EXTENSIONS.planTier, description: 'Skills carry a plan:<tier> tag; plan:pro needs Pro or higher.', required: false, params: { tiers: ['free', 'pro', 'team', 'enterprise'] } },
        { uri: EXTENSIONS.shareJws, description: 'Inbound share requests and task proofs are Ed25519 JWS (alg EdDSA, kid header).', required: false, params: { jwks_url: `${base}/.well-known/a2a-jwks.json` } },
        { uri: EXTENSIONS.taskPush, description: 'Delegated task lifecycle events are pushed to registered webhooks.', required: false, params: { event: 'a2a.task.status' } },
        { uri: EXTENSIONS.payment, description: 'Payment-signature headers are accepted; charges are billed asynchronously.', required: false, params: { scope: ['/v1/compress', '/v1/compress-code'] } },
      ],
    },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'gc_ API key or identity-provider JWT', description: 'Authorization: Bearer <API key or JWT>' } },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: allTools().map((tool) => ({
      id: tool.name,
      name: tool.name,
      description: tool.description,
      tags: [`plan:${tool.plan}`, `category:${tool.category}`, 'mcp'],
      examples: [],
      inputModes: TOOL_MODES,
      outputModes: TOOL_MODES,
      securityRequirements: [],
    })),
    signatures: [],
    metadata: { api_description_version: API_DESCRIPTION_VERSION, service_version: serviceVersion },
  };
}

/** The legacy 0.x path also carries the fields 0.3 clients look for. */
export function legacyAgentCard(base: string, serviceVersion: string) {
  return {
    ...buildAgentCard(base, serviceVersion),
    protocolVersion: '0.3.0',
    url: `${base}/mcp`,
    preferredTransport: 'MCP',
    additionalInterfaces: [
      { url: `${base}/mcp`, transport: 'MCP' },
      { url: base, transport: 'HTTP+JSON' },
      { url: `${base}${A2A_PATH}/jsonrpc`, transport: 'JSONRPC' },
    ],
  };
}
