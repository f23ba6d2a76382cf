// proxy_mcp_server: one call to another MCP server (list its tools, or call one), its answer
// compressed on the way back. A connection lasts one call: nothing of the upstream session, its
// URL's headers or its output is stored.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Fidelity } from '../../../workers/shared/fidelity.js';
import { savingsPercent } from '../../../workers/shared/stats.js';
import type { Call } from '../call.js';
import { compressText } from '../compression/text.js';
import { compressManifest } from '../compression/toolOutput.js';
import type { ToolDef } from '../compression/manifest.js';
import { countTokensMany } from '../compression/tokens.js';
import { DomainError, invalid, timedOut, unavailable } from '../errors.js';
import { badGateway, outsideReasonOf } from '../platform/outside.js';
import { upstreamTransport, type Upstream } from './transport.js';

/** Pages of tools/list read from one upstream (a page is usually every tool). */
const MAX_TOOL_PAGES = 20;

export type ProxyRequest =
  | { action: 'list_tools'; server: Upstream; max_description_chars: number }
  | { action: 'call_tool'; server: Upstream; tool: string; arguments: Record<string, unknown>; query: string | null; fidelity: Fidelity; min_tokens: number; include_structured: boolean };

/**
 * An upstream failure as the caller should see it: a refused target (fetch_refused), the upstream's
 * own error (upstream_error), or a server that is unreachable, slow, or not speaking TLS or HTTP
 * (bad_gateway with its reason and host, docs/decisions.md "Outside fetch failures").
 */
function upstreamFailure(err: unknown, stage: string, host: string | null): DomainError {
  if (err instanceof DomainError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const refused = /fetch_refused: ([^\n]*)/.exec(message);
  if (refused) return invalid(`fetch_refused: ${refused[1]}`, { code: 'fetch_refused' });
  const what = `Cannot reach the upstream MCP server (${stage})`;
  if (err instanceof McpError) {
    if (err.code === -32001) return host ? badGateway(what, host, 'timeout', message.slice(0, 200)) : timedOut(`The upstream MCP server did not answer ${stage} in time`);
    return invalid(`The upstream MCP server refused ${stage}: ${message.slice(0, 500)}`, { code: 'upstream_error' });
  }
  if (!host) return unavailable(`${what}: ${message.slice(0, 300)}`, 5);
  const r = outsideReasonOf(err);
  if (r) return badGateway(what, host, r.reason, r.cause);
  return badGateway(what, host, /\bHTTP \d{3}\b/.test(message) ? 'status' : 'protocol', message.slice(0, 300));
}

interface TextBlock {
  type: 'text';
  text: string;
}

export async function proxyMcpServer(call: Call, request: ProxyRequest) {
  const settings = call.services.config.mcpProxy;
  await call.requireQuota();
  const transport = upstreamTransport(settings, request.server);
  const client = new Client({ name: 'semantic-compression-proxy', version: call.services.config.version });
  const timeout = settings.timeoutMs;
  const via = 'stdio' in request.server ? 'stdio' : 'streamable-http';
  const host = 'url' in request.server ? new URL(request.server.url).host : null;
  try {
    try {
      await client.connect(transport, { timeout });
    } catch (err) {
      throw upstreamFailure(err, 'the connection', host);
    }
    const upstream = { transport: via, name: client.getServerVersion()?.name ?? null, version: client.getServerVersion()?.version ?? null };
    if (request.action === 'list_tools') {
      const tools: ToolDef[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const r = await client.listTools(cursor ? { cursor } : undefined, { timeout }).catch((err) => {
          throw upstreamFailure(err, 'tools/list', host);
        });
        tools.push(...(r.tools as ToolDef[]));
        cursor = r.nextCursor;
        if (!cursor) break;
      }
      if (tools.length === 0) return { upstream, action: request.action, tools: [], tool_count: 0, original_tokens: 0, compressed_tokens: 0, tokens_saved: 0, savings_percent: 0 };
      const { compressed, ...stats } = await compressManifest(call, tools, request.max_description_chars, tools, (t) => t);
      return { upstream, action: request.action, tools: compressed, ...stats, truncated: Boolean(cursor) };
    }

    const r = await client.callTool({ name: request.tool, arguments: request.arguments }, undefined, { timeout }).catch((err) => {
      throw upstreamFailure(err, `tools/call ${request.tool}`, host);
    });
    const blocks = (r.content ?? []) as Array<{ type: string } & Record<string, unknown>>;
    const text = blocks.filter((b): b is TextBlock & typeof b => b.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('\n\n');
    const others = blocks.filter((b) => b.type !== 'text');
    const [original] = text ? await countTokensMany(call, [text]) : [0];
    let output = text;
    let compressedTokens = original!;
    let compressed = false;
    if (original! >= request.min_tokens) {
      const c = await compressText(call, { text, fidelity: request.fidelity, query: request.query });
      if (c.compressed_tokens < original!) {
        output = c.compressed_text;
        compressedTokens = c.compressed_tokens;
        compressed = true;
      }
    } else {
      call.report({ inputTokens: original!, outputTokens: original! });
    }
    return {
      upstream,
      action: request.action,
      tool: request.tool,
      is_error: r.isError === true,
      content: [...(output ? [{ type: 'text', text: output }] : []), ...others],
      compressed,
      fidelity: compressed ? request.fidelity : null,
      original_tokens: original!,
      compressed_tokens: compressedTokens,
      tokens_saved: original! - compressedTokens,
      savings_percent: savingsPercent(original!, compressedTokens),
      // The upstream's JSON twin of its text: only on request, since it would carry the tokens back.
      ...(request.include_structured ? { structured_content: r.structuredContent ?? null } : {}),
    };
  } finally {
    await client.close().catch(() => {});
  }
}
