// Spec: "MCP surface > Tool catalogue > general": proxy_mcp_server. The catalogue names the tool only;
// its arguments and result are "not shown" (docs/mcp-proxy.md has the choices).
import { t, type ContractFile } from '../contract.js';

export default {
  area: 'MCP tools: proxy_mcp_server',
  tools: [
    {
      tool: 'proxy_mcp_server',
      spec: 'general: proxy_mcp_server',
      note: 'The catalogue names no fields; the sample goes to an SDK-built MCP server over stdio (test/fixtures/mcp/upstream.mjs).',
      args: { server: { stdio: 'fixture' }, tool: 'read_log', arguments: { lines: 300 }, query: 'error' },
      fields: { is_error: t.boolean, content: t.array, original_tokens: t.integer, compressed_tokens: t.integer },
      check: (data) => {
        if (!(data.compressed_tokens < data.original_tokens)) throw new Error('the upstream output was not compressed');
      },
    },
  ],
} satisfies ContractFile;
