// configure_for_client: the MCP configuration for this service in each usual client's own format, as
// data (one entry per client). The key is never written into a snippet: it is read from an environment
// variable or a prompt the client offers, so a snippet can be pasted into a shared repository.
// The formats follow each client's documentation for remote (Streamable HTTP) servers; docs/clients.md
// says which were run here.
import { invalid } from '../errors.js';

export const CLIENT_IDS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'windsurf', 'cline', 'continue', 'zed', 'codex', 'gemini-cli'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

interface ClientFormat {
  name: string;
  /** Where the snippet goes. */
  location: string;
  format: 'shell' | 'json' | 'yaml' | 'toml';
  render(url: string, env: string): string;
  notes: string[];
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
/** Clients whose config file starts only local (stdio) servers reach a remote one through mcp-remote. */
const bridged = (url: string, env: string) => ({ command: 'npx', args: ['-y', 'mcp-remote', url, '--header', `Authorization:Bearer \${${env}}`] });

const CLIENTS: Record<ClientId, ClientFormat> = {
  'claude-code': {
    name: 'Claude Code',
    location: 'a shell (adds the server to the current project; --scope user for every project)',
    format: 'shell',
    render: (url, env) => `claude mcp add --transport http compression "${url}" --header "Authorization: Bearer $${env}"`,
    notes: ['Check with: claude mcp list'],
  },
  'claude-desktop': {
    name: 'Claude Desktop',
    location: 'claude_desktop_config.json (Settings → Developer → Edit Config)',
    format: 'json',
    render: (url, env) => json({ mcpServers: { compression: { ...bridged(url, env), env: { [env]: 'gc_…' } } } }),
    notes: ['The config file starts local servers only, so mcp-remote bridges to the HTTP endpoint; put the key in env.', 'Restart Claude Desktop after editing.'],
  },
  cursor: {
    name: 'Cursor',
    location: '.cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project)',
    format: 'json',
    render: (url, env) => json({ mcpServers: { compression: { url, headers: { Authorization: `Bearer \${env:${env}}` } } } }),
    notes: ['Set the variable named in key_from in the environment Cursor starts from.'],
  },
  vscode: {
    name: 'VS Code (Copilot agent mode)',
    location: '.vscode/mcp.json',
    format: 'json',
    render: (url) =>
      json({
        servers: { compression: { type: 'http', url, headers: { Authorization: 'Bearer ${input:gc-key}' } } },
        inputs: [{ id: 'gc-key', type: 'promptString', description: 'Compression service API key', password: true }],
      }),
    notes: ['VS Code asks for the key once and stores it in its secret storage.'],
  },
  windsurf: {
    name: 'Windsurf',
    location: '~/.codeium/windsurf/mcp_config.json',
    format: 'json',
    render: (url, env) => json({ mcpServers: { compression: { serverUrl: url, headers: { Authorization: `Bearer \${env:${env}}` } } } }),
    notes: ['Refresh the MCP servers in Cascade after editing.'],
  },
  cline: {
    name: 'Cline',
    location: 'cline_mcp_settings.json (MCP Servers → Configure)',
    format: 'json',
    render: (url) => json({ mcpServers: { compression: { type: 'streamableHttp', url, headers: { Authorization: 'Bearer gc_…' } } } }),
    notes: ['Cline reads no environment variables in this file: paste the key in place of gc_… and keep the file out of version control.'],
  },
  continue: {
    name: 'Continue',
    location: '.continue/mcpServers/compression.yaml',
    format: 'yaml',
    render: (url, env) =>
      [
        'name: Compression service',
        'version: 0.0.1',
        'schema: v1',
        'mcpServers:',
        '  - name: compression',
        '    type: streamable-http',
        `    url: ${url}`,
        '    requestOptions:',
        '      headers:',
        `        Authorization: Bearer \${{ secrets.${env} }}`,
        '',
      ].join('\n'),
    notes: ["Add the variable named in key_from to Continue's secrets."],
  },
  zed: {
    name: 'Zed',
    location: 'settings.json (zed: open settings)',
    format: 'json',
    render: (url, env) => json({ context_servers: { compression: { source: 'custom', ...bridged(url, env), env: { [env]: 'gc_…' } } } }),
    notes: ['Zed starts local context servers, so mcp-remote bridges to the HTTP endpoint.'],
  },
  codex: {
    name: 'Codex CLI',
    location: '~/.codex/config.toml',
    format: 'toml',
    render: (url, env) => ['[mcp_servers.compression]', `url = "${url}"`, `bearer_token_env_var = "${env}"`, ''].join('\n'),
    notes: ['Codex reads the key from the variable named in key_from when it starts.'],
  },
  'gemini-cli': {
    name: 'Gemini CLI',
    location: '~/.gemini/settings.json (or .gemini/settings.json in the project)',
    format: 'json',
    render: (url, env) => json({ mcpServers: { compression: { httpUrl: url, headers: { Authorization: `Bearer $${env}` } } } }),
    notes: ['Check with /mcp in a session.'],
  },
};

/** The snippet for one client; `toolsets` goes on the URL (docs/clients.md). */
export function clientConfig(client: ClientId, baseUrl: string, options: { toolsets?: string[]; envVar?: string } = {}) {
  const entry = CLIENTS[client];
  if (!entry) throw invalid(`Unknown client '${client}'; clients: ${CLIENT_IDS.join(', ')}`);
  const env = options.envVar ?? 'GC_KEY';
  const url = `${baseUrl}/mcp${options.toolsets?.length ? `?toolsets=${options.toolsets.join(',')}` : ''}`;
  return { client, name: entry.name, location: entry.location, format: entry.format, url, key_from: env, snippet: entry.render(url, env), notes: entry.notes };
}
