import { z } from 'zod';
import { CLIENT_IDS, clientConfig } from '../../../domain/platform/clientConfig.js';
import { defineTool, type ToolDefinition } from '../../tool.js';
import { parseToolsets, toolsetNames } from '../../toolsets.js';

/**
 * Built by the registry over itself, as tool_help is (the toolsets it accepts are the registry's
 * categories), so no module imports the registry back.
 */
export function configureForClientTool(catalogue: { all(): readonly ToolDefinition[] }) {
  return defineTool({
    name: 'configure_for_client',
    readOnly: true,
    advisory: true,
    description:
      "This service's MCP configuration in a client's own format (Claude Code, Claude Desktop, Cursor, VS Code, Windsurf, Cline, Continue, Zed, Codex, Gemini CLI), with where it goes; the key is read from an environment variable, never written in.",
    output: z.looseObject({
      client: z.string(),
      name: z.string(),
      location: z.string(),
      format: z.enum(['shell', 'json', 'yaml', 'toml']),
      url: z.string(),
      key_from: z.string(),
      snippet: z.string(),
      notes: z.array(z.string()),
    }),
    input: z
      .object({
        client: z.enum(CLIENT_IDS),
        toolsets: z.array(z.string().min(1).max(40)).max(20).optional().describe('Toolsets to list besides the core (or ["all"])'),
        env_var: z.string().regex(/^[A-Z_][A-Z0-9_]{0,63}$/).optional().describe('Environment variable holding the key (default GC_KEY)'),
      })
      .strict(),
    async handler(args, ctx) {
      // Unknown toolset names are the same 400-style error the MCP URL gives.
      if (args.toolsets?.length) parseToolsets(args.toolsets.join(','), toolsetNames(catalogue.all()));
      return { result: clientConfig(args.client, ctx.baseUrl, { toolsets: args.toolsets, envVar: args.env_var }) };
    },
  });
}
