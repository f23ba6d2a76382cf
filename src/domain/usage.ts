import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../store/db.js';

export type UsageMethod = 'REST' | 'MCP' | 'batch' | 'mcp_advisory';

export interface UsageEventInput {
  principal: Principal;
  method: UsageMethod;
  toolName?: string | null;
  client?: string | null;
  fidelity?: string | null;
  model?: string | null;
  status: 'success' | 'client_error' | 'server_error' | 'timeout';
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  cacheHit?: boolean;
  inputText?: string | null;
}

/** The spec's input preview: first line only, at most 100 characters; the full text is never stored. */
export function inputPreview(text: string | null | undefined): string | null {
  if (!text) return null;
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  return Array.from(firstLine).slice(0, 100).join('');
}

export function savingsPercent(input: number, output: number): number {
  return input > 0 ? Math.round(((input - output) / input) * 1000) / 10 : 0;
}

/** Records in the background (shutdown waits for it) so the caller's answer is not delayed by the insert. */
export function recordUsageInBackground(services: { db: Queryable; background: { add(label: string, p: Promise<unknown>): void } }, e: UsageEventInput): void {
  services.background.add('usage event', recordUsageEvent(services.db, e));
}

export async function recordUsageEvent(db: Queryable, e: UsageEventInput): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `insert into usage_events (user_id, key_id, project_id, environment, method, tool_name, client, fidelity, model,
       status, input_tokens, output_tokens, savings_percent, latency_ms, cache_hit, input_preview)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) returning id`,
    [
      e.principal.userId, e.principal.keyId, e.principal.projectId, e.principal.environment, e.method,
      e.toolName ?? null, e.client ?? null, e.fidelity ?? null, e.model ?? null, e.status, e.inputTokens,
      e.outputTokens, savingsPercent(e.inputTokens, e.outputTokens), Math.max(0, Math.round(e.latencyMs)),
      e.cacheHit ?? false, inputPreview(e.inputText),
    ],
  );
  return row!.id;
}
