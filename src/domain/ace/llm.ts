// The model side of ACE: one provider call through the provider layer (complete()), and the robust
// reading of a JSON reply. A reply without JSON is read in the pool (workers/ace/candidates.ts).
import type { ChatMessage } from '../../providers/llm/index.js';
import { LlmProviderError } from '../../providers/llm/types.js';
import { LOCAL_MODEL } from '../../providers/llm/localServer.js';
import { needsStoring, storableText } from '../../lib/text.js';
import type { Call } from '../call.js';
import { DomainError, invalid } from '../errors.js';
import type { Scope } from '../memory/memories.js';
import { complete, DEFAULT_PROVIDER, type Completion } from '../workflows/providers.js';

export interface ModelChoice {
  provider?: string;
  model?: string;
  maxTokens: number;
}

/** What each step reports about its model call. */
export interface CallFigures {
  provider: string;
  model: string;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_micros: number | null;
}

export function figuresOf(c: Completion): CallFigures {
  return { provider: c.provider, model: c.model, input_tokens: c.inputTokens, output_tokens: c.outputTokens, cost_micros: c.costMicros };
}

/** Sum of the known costs; null when none is known. */
export function totalCost(costs: (number | null | undefined)[]): number | null {
  const known = costs.filter((c): c is number => typeof c === 'number');
  return known.length ? known.reduce((a, b) => a + b, 0) : null;
}

/**
 * One model call for a scope. A project-bound key uses its project's providers (the default one falls
 * back to the local server); an unbound key has no project, so only the local default provider.
 */
export async function aceComplete(call: Call, s: Scope, choice: ModelChoice, messages: ChatMessage[]): Promise<Completion> {
  const provider = choice.provider ?? DEFAULT_PROVIDER;
  const c = await callProvider(call, s, choice, messages, provider);
  // A reply is outside text: made storable (no U+0000, no unpaired surrogates) before anything keeps it.
  return needsStoring(c.text) ? { ...c, text: storableText(c.text) } : c;
}

async function callProvider(call: Call, s: Scope, choice: ModelChoice, messages: ChatMessage[], provider: string): Promise<Completion> {
  const { services } = call;
  try {
    if (s.scope) return await complete(services, s.scope, { provider, model: choice.model, messages, maxTokens: choice.maxTokens, temperature: 0, signal: call.signal });
    if (provider !== DEFAULT_PROVIDER) throw invalid(`Provider '${provider}' belongs to a project: use a project-bound key (an unbound key has only the local default provider)`);
    const base = services.llm.localBaseUrl;
    if (!base) throw invalid('No LLM provider: this key is not bound to a project and the local provider is off (LLM_LOCAL_SERVER=off)');
    return await complete(services, '', { provider, model: choice.model, messages, maxTokens: choice.maxTokens, temperature: 0, signal: call.signal }, {
      name: DEFAULT_PROVIDER,
      api: 'local',
      client: services.llm.client('openai', base, null),
      defaultModel: LOCAL_MODEL,
      priceApi: 'local',
    });
  } catch (err) {
    if (!(err instanceof LlmProviderError) || err.kind === 'cancelled') throw err;
    const detail = `LLM provider '${provider}' failed (${err.kind}${err.status ? ` ${err.status}` : ''}): ${err.message}`;
    if (err.kind === 'request' || err.kind === 'auth') throw invalid(detail, { code: 'provider_error' });
    throw new DomainError('unavailable', detail, { code: 'provider_error', retryAfter: 2 });
  }
}

/** Strings of a parsed reply made storable: JSON escapes can spell U+0000, which jsonb refuses. */
function storable(value: unknown): unknown {
  if (typeof value === 'string') return needsStoring(value) ? storableText(value) : value;
  if (Array.isArray(value)) return value.map(storable);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), storable(v)]));
  return value;
}

/** The JSON value in a model's answer: the whole text, a fenced block, or the outermost braces. */
export function extractJson(text: string): unknown {
  const tries = [text.trim()];
  for (const m of text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) tries.push(m[1]!.trim());
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) tries.push(text.slice(first, last + 1));
  const firstA = text.indexOf('[');
  const lastA = text.lastIndexOf(']');
  if (firstA >= 0 && lastA > firstA) tries.push(text.slice(firstA, lastA + 1));
  for (const t of tries) {
    if (!t || !/^[[{]/.test(t)) continue;
    try {
      return storable(JSON.parse(t));
    } catch {
      // next candidate
    }
  }
  return null;
}

export { sectionFor } from '../../../workers/shared/aceSections.js';
