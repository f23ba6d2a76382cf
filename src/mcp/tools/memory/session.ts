import { z } from 'zod';
import { defineTool } from '../../tool.js';
import { COMPRESSION_PROFILES } from '../compression/profiles.js';
import { countTokensMany } from '../../../domain/compression/tokens.js';
import { sessionActivity } from '../../../domain/metering/sessionActivity.js';

export const sessionTools = [
  defineTool({
    name: 'gc_session_summary',
    output: z.looseObject({
      session_id: z.string(),
      started_at: z.string(),
      call_count: z.number().int(),
      tools: z.record(z.string(), z.looseObject({ calls: z.number().int(), errors: z.number().int() })),
      tokens: z.looseObject({ compressed_input: z.number().int(), compressed_output: z.number().int(), saved: z.number().int() }),
      documents: z.array(z.looseObject({ file_id: z.string() })),
      errors: z.array(z.looseObject({ tool: z.string(), error: z.string() })),
      summary: z.string(),
      restoration_instructions: z.array(z.string()),
      history_tokens: z.number().int(),
      summary_tokens: z.number().int(),
    }),
    description:
      'Portable summary of this MCP session: calls by tool, errors, tokens processed and saved, the active profile, documents ingested, and restoration_instructions to rebuild the working state in a new session. Counts as a compression against the monthly quota.',
    input: z
      .object({
        max_recent: z.number().int().min(0).max(200).default(20).describe('How many recent calls to list'),
        notes: z.string().max(4000).optional().describe('Your own notes to carry over (goal, open questions)'),
      })
      .strict(),
    async handler(args, ctx) {
      const { session, principal, services, call } = ctx;
      // The spec: a session summary counts against the monthly compression quota.
      await call.requireQuota();
      const since = new Date(session.createdAt);
      const { events, documents: docs } = await sessionActivity(services.db, principal, since);

      const byTool: Record<string, { calls: number; errors: number; input_tokens: number; output_tokens: number }> = {};
      for (const h of session.history) {
        const t = (byTool[h.tool] ??= { calls: 0, errors: 0, input_tokens: 0, output_tokens: 0 });
        t.calls++;
        if (h.summary.startsWith('error')) t.errors++;
      }
      let inputTokens = 0;
      let outputTokens = 0;
      for (const e of events) {
        const t = (byTool[e.tool_name ?? 'unknown'] ??= { calls: 0, errors: 0, input_tokens: 0, output_tokens: 0 });
        t.input_tokens += e.input_tokens;
        t.output_tokens += e.output_tokens;
        if (e.method === 'MCP') {
          inputTokens += e.input_tokens;
          outputTokens += e.output_tokens;
        }
      }
      const recent = session.history.slice(-args.max_recent);
      const errors = session.history.filter((h) => h.summary.startsWith('error')).map((h) => ({ tool: h.tool, at: h.at, error: h.summary.slice(6) }));
      const profile = { name: session.profile, ...COMPRESSION_PROFILES[session.profile], overrides: session.overrides };

      const lines: string[] = [];
      lines.push(`Session ${session.id ?? '(stateless)'} since ${since.toISOString()}: ${session.history.length} tool calls.`);
      lines.push(`Compression: ${inputTokens} tokens in, ${outputTokens} out (${inputTokens - outputTokens} saved).`);
      lines.push(`Profile: ${session.profile}${Object.keys(session.overrides).length ? ` with ${JSON.stringify(session.overrides)}` : ''}.`);
      const toolLine = Object.entries(byTool).sort((a, b) => b[1].calls - a[1].calls).map(([n, t]) => `${n}×${t.calls}${t.errors ? ` (${t.errors} failed)` : ''}`);
      if (toolLine.length) lines.push(`Tools: ${toolLine.join(', ')}.`);
      if (docs.length) lines.push(`Documents: ${docs.map((d) => `${d.name ?? d.file_path ?? d.id} (file_id ${d.id}, ${d.node_count} nodes)`).join('; ')}.`);
      if (errors.length) lines.push(`Errors: ${errors.slice(-5).map((e) => `${e.tool}: ${e.error}`).join('; ')}.`);
      if (args.notes) lines.push(`Notes: ${args.notes}`);
      const summary = lines.join('\n');

      const restoration: string[] = [];
      restoration.push(
        `Call set_compression_profile with ${JSON.stringify({ profile: session.profile, ...session.overrides })} to restore the compression profile.`,
      );
      for (const d of docs) {
        restoration.push(
          `Document ${d.name ?? d.id} is still stored: use read_skeleton or modulate_region with file_id ${d.id}` +
            (d.file_path ? ` (re-ingest with ingest_context and file_path ${d.file_path} if the file changed).` : '.'),
        );
      }
      restoration.push('Paste the summary into the new session\'s context before continuing; call gc_pre_flight before large inputs.');

      // Usage: the full history (what the summary replaces) against the summary itself, both counted exactly.
      const fullHistory = JSON.stringify({ history: session.history, events });
      const [historyTokens, summaryTokens] = await countTokensMany(call, [fullHistory, summary]);
      call.report({ inputTokens: Math.max(historyTokens!, summaryTokens!), outputTokens: summaryTokens!, inputText: summary });
      return {
        result: {
          session_id: session.id,
          started_at: since.toISOString(),
          call_count: session.history.length,
          tools: byTool,
          tokens: { compressed_input: inputTokens, compressed_output: outputTokens, saved: inputTokens - outputTokens },
          profile,
          documents: docs.map((d) => ({ file_id: d.id, name: d.name, file_path: d.file_path, source_url: d.source_url, node_count: d.node_count, total_tokens: d.total_tokens })),
          errors,
          recent_calls: recent,
          summary,
          restoration_instructions: restoration,
          history_tokens: historyTokens!,
          summary_tokens: summaryTokens!,
        },
      };
    },
  }),
];
