import { z } from 'zod';
import { FIDELITIES } from '../../../../workers/shared/fidelity.js';
import { DEFAULT_MAX_DESCRIPTION_CHARS } from '../../../domain/compression/manifest.js';
import { proxyMcpServer } from '../../../domain/proxy/proxy.js';
import { defineTool } from '../../tool.js';
import { fidelity, int, tokenFigures } from '../outputs.js';

const server = z.union([
  z.object({ url: z.string().min(1).max(2000), headers: z.record(z.string(), z.string().max(8192)).optional() }).strict(),
  z.object({ stdio: z.string().min(1).max(100) }).strict(),
]);

export const proxyTools = [
  defineTool({
    name: 'proxy_mcp_server',
    // Calls another MCP server: whatever it does is outside this service.
    hints: { openWorldHint: true },
    description:
      "Calls another MCP server's tool (or lists its tools) through this service and compresses what comes back. server is {url, headers?} for Streamable HTTP (https to a public address; headers such as the upstream's Authorization are passed through, never stored or logged) or {stdio: name} for a stdio server the operator configured. call_tool returns the upstream's text compressed at `fidelity` (query-guided when `query` is given), other content blocks as sent; list_tools returns the tools with shortened descriptions, schemas byte for byte.",
    input: z
      .object({
        server,
        action: z.enum(['call_tool', 'list_tools']).default('call_tool'),
        tool: z.string().min(1).max(200).optional(),
        arguments: z.record(z.string(), z.unknown()).default({}),
        query: z.string().max(2000).optional(),
        fidelity: z.enum(FIDELITIES).default('balanced'),
        min_tokens: z.number().int().min(0).max(1_000_000).default(200),
        include_structured: z.boolean().default(false),
        max_description_chars: z.number().int().min(20).max(2000).default(DEFAULT_MAX_DESCRIPTION_CHARS),
      })
      .strict()
      .refine((a) => a.action !== 'call_tool' || a.tool !== undefined, { message: 'tool is required for call_tool', path: ['tool'] }),
    // list_tools answers tools and tool_count; call_tool the upstream's content, compressed.
    output: z.looseObject({
      upstream: z.looseObject({ transport: z.enum(['stdio', 'streamable-http']), name: z.string().nullable(), version: z.string().nullable() }),
      action: z.enum(['call_tool', 'list_tools']),
      tools: z.array(z.looseObject({ name: z.string() })).optional(),
      tool_count: int.optional(),
      tool: z.string().optional(),
      is_error: z.boolean().optional(),
      content: z.array(z.looseObject({ type: z.string() })).optional(),
      compressed: z.boolean().optional(),
      fidelity: fidelity.nullable().optional(),
      ...tokenFigures,
      tokens_saved: int,
    }),
    async handler(args, { call }) {
      const result =
        args.action === 'list_tools'
          ? await proxyMcpServer(call, { action: 'list_tools', server: args.server, max_description_chars: args.max_description_chars })
          : await proxyMcpServer(call, {
              action: 'call_tool',
              server: args.server,
              tool: args.tool!,
              arguments: args.arguments,
              query: args.query ?? null,
              fidelity: args.fidelity,
              min_tokens: args.min_tokens,
              include_structured: args.include_structured,
            });
      return { result };
    },
  }),
];
