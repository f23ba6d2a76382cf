import type { Call } from '../call.js';
import { CACHE_PROVIDERS, CACHE_RULES, CACHE_RULES_AS_OF, minimumTokens, type CacheProvider } from './rules.js';
import { prefixVerdicts, resolveProvider, TOKENIZER_NOTE } from './providers.js';

export const PROMPT_ROLES = ['tools', 'system', 'developer', 'user', 'assistant', 'tool'] as const;
export type PromptRole = (typeof PROMPT_ROLES)[number];

export interface AuditInput {
  prompt?: string;
  messages?: { role: PromptRole; content: string }[];
  provider?: CacheProvider;
  model?: string;
  max_findings: number;
}

const JOIN = '\n\n';

/** The prompt as one text, and where each message starts in it. */
export function flatten(input: Pick<AuditInput, 'prompt' | 'messages'>): { text: string; starts: number[] } {
  if (input.prompt !== undefined) return { text: input.prompt, starts: [] };
  const starts: number[] = [];
  let text = '';
  for (const m of input.messages!) {
    if (starts.length) text += JOIN;
    starts.push(text.length);
    text += m.content;
  }
  return { text, starts };
}

function messageAt(starts: number[], offset: number): number {
  let i = 0;
  while (i + 1 < starts.length && starts[i + 1]! <= offset) i++;
  return i;
}

/**
 * audit_prompt_cacheability: volatile content (timestamps, dates, UUIDs, request ids, random
 * numbers) and where it sits. A prefix is cached only up to its first change, so the first volatile
 * span bounds what any request can reuse.
 */
export async function auditCacheability(call: Call, input: AuditInput) {
  const provider = resolveProvider(input.provider, input.model);
  const { text, starts } = flatten(input);
  const r = await call.compute('cacheAudit', { text, model: input.model ?? null, max: input.max_findings });
  const findings = r.spans.map((s) => {
    const f: Record<string, unknown> = { kind: s.kind, text: s.text, char_offset: s.char, token_index: s.token, reason: s.why };
    if (input.messages) {
      const i = messageAt(starts, s.char);
      Object.assign(f, { message_index: i, role: input.messages[i]!.role, char_offset_in_message: s.char - starts[i]! });
    }
    return f;
  });
  const first = r.spans[0] ?? null;
  const stablePrefix = first ? first.token : r.total_tokens;
  const providers = prefixVerdicts(provider ? [provider] : [...CACHE_PROVIDERS], input.model, stablePrefix).map((p) => ({
    ...p,
    verdict: !first
      ? p.above_minimum ? 'cacheable' : 'too_short'
      : p.above_minimum ? 'partially_cacheable' : 'volatile_too_early',
  }));
  const recommendations: string[] = [];
  if (!first) recommendations.push('No volatile content found: the whole prompt can serve as a cached prefix.');
  else {
    const where = input.messages ? ` (message ${findings[0]!.message_index}, ${findings[0]!.role})` : '';
    recommendations.push(
      `The first volatile content, a ${first.kind} at token ${first.token}${where}, ends every cached prefix: only ${stablePrefix} of ${r.total_tokens} tokens can be reused.`,
      'Move timestamps, dates, ids and random values to the end of the prompt (the last user message), or drop them.',
    );
    const minimum = Math.min(...(provider ? [provider] : [...CACHE_PROVIDERS]).map((p) => minimumTokens(CACHE_RULES[p], input.model)));
    if (stablePrefix < minimum) recommendations.push(`The stable prefix (${stablePrefix} tokens) is under the minimum cacheable length (${minimum}): as it stands nothing is cached.`);
    if (provider === 'anthropic') recommendations.push('Place the cache_control breakpoint on the last block before the first volatile content.');
  }
  return {
    total_tokens: r.total_tokens,
    findings,
    findings_total: r.found,
    findings_truncated: r.found > r.spans.length,
    first_volatile_token: first ? first.token : null,
    stable_prefix_tokens: stablePrefix,
    providers,
    recommendations,
    tokenizer: r.tokenizer,
    tokenizer_note: TOKENIZER_NOTE,
    rules_as_of: CACHE_RULES_AS_OF,
  };
}
