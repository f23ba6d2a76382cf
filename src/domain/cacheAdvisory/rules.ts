// The providers' published prompt-caching rules, kept as dated data. Every figure here is from the
// provider's own documentation as it read on AS_OF; providers change these, so the tools echo the date
// and operators update this file (not the code that reads it) when a rule moves.

export const CACHE_RULES_AS_OF = '2025-06-01';
export const CACHE_RULES_SOURCE = "The providers' public prompt-caching documentation as known on the as_of date (Anthropic prompt caching, OpenAI prompt caching, Google Gemini context caching).";

export type CacheProvider = 'anthropic' | 'openai' | 'google';
export const CACHE_PROVIDERS = ['anthropic', 'openai', 'google'] as const;

export interface ModelMinimum {
  /** Model id prefix (longest match wins). */
  prefix: string;
  min_tokens: number;
}

export interface CacheRules {
  provider: CacheProvider;
  /** explicit: the caller marks what to cache; automatic: the provider caches matching prefixes itself. */
  mode: 'explicit' | 'automatic' | 'implicit_and_explicit';
  /** How a prefix is marked, when it is. */
  marker: string | null;
  max_breakpoints: number | null;
  /** Minimum cacheable prefix by model; `default_min_tokens` when no prefix matches. */
  min_tokens_by_model: ModelMinimum[];
  default_min_tokens: number;
  /** Cached lengths are whole multiples of this many tokens past the minimum (OpenAI); 1 = exact. */
  increment_tokens: number;
  ttl: { default_seconds: number; options_seconds: number[]; note: string };
  /** Multipliers of the base input price. */
  price: { cache_read: number; cache_write: Record<string, number>; note: string };
  prefix_order: string[];
  invalidation: string[];
  notes: string[];
}

export const CACHE_RULES: Record<CacheProvider, CacheRules> = {
  anthropic: {
    provider: 'anthropic',
    mode: 'explicit',
    marker: 'cache_control: {"type": "ephemeral"} on a content block (tools, system or messages)',
    max_breakpoints: 4,
    min_tokens_by_model: [
      { prefix: 'claude-3-haiku', min_tokens: 2048 },
      { prefix: 'claude-3-5-haiku', min_tokens: 2048 },
      { prefix: 'claude-haiku', min_tokens: 2048 },
      { prefix: 'claude-3-5-sonnet', min_tokens: 1024 },
      { prefix: 'claude-3-7-sonnet', min_tokens: 1024 },
      { prefix: 'claude-sonnet', min_tokens: 1024 },
      { prefix: 'claude-3-opus', min_tokens: 1024 },
      { prefix: 'claude-opus', min_tokens: 1024 },
    ],
    default_min_tokens: 1024,
    increment_tokens: 1,
    ttl: { default_seconds: 300, options_seconds: [300, 3600], note: '5-minute default, refreshed on every hit; 1-hour TTL as an option (ttl: "1h").' },
    price: { cache_read: 0.1, cache_write: { '300': 1.25, '3600': 2 }, note: 'Reads 0.1x the base input price; writes 1.25x for the 5-minute TTL and 2x for the 1-hour TTL.' },
    prefix_order: ['tools', 'system', 'messages'],
    invalidation: [
      'The cache key is the exact prefix up to a breakpoint, in the order tools -> system -> messages.',
      'Any change (one character, tool definitions, tool_choice, images, thinking settings) invalidates the cache from that point on; everything after it is written again.',
      'Prefixes shorter than the model minimum are not cached even when marked.',
    ],
    notes: ['The system checks for hits at up to about 20 blocks before each breakpoint.'],
  },
  openai: {
    provider: 'openai',
    mode: 'automatic',
    marker: null,
    max_breakpoints: null,
    min_tokens_by_model: [],
    default_min_tokens: 1024,
    increment_tokens: 128,
    ttl: { default_seconds: 300, options_seconds: [300, 600, 3600], note: 'Typically cleared after 5-10 minutes idle, always within 1 hour (off-peak).' },
    price: { cache_read: 0.5, cache_write: { '300': 1 }, note: 'Cached input at a 50% discount on most models (some models have their own cached price); no write surcharge.' },
    prefix_order: ['tools', 'system/developer', 'messages', 'images'],
    invalidation: [
      'Caching is automatic for prompts of 1024 tokens or more; hits are exact prefix matches.',
      'Cached length grows in 128-token steps past the first 1024 tokens.',
      'Any change in the prefix ends the match there; put static content first, variable content last.',
    ],
    notes: ['No breakpoints: the prompt_cache_key parameter can steer routing of requests that share a long prefix.'],
  },
  google: {
    provider: 'google',
    mode: 'implicit_and_explicit',
    marker: 'explicit: a CachedContent resource referenced by name; implicit: automatic on Gemini 2.5 models',
    max_breakpoints: null,
    min_tokens_by_model: [
      { prefix: 'gemini-2.5-flash', min_tokens: 1024 },
      { prefix: 'gemini-2.5-pro', min_tokens: 2048 },
      { prefix: 'gemini-2.0-flash', min_tokens: 2048 },
    ],
    default_min_tokens: 2048,
    increment_tokens: 1,
    ttl: { default_seconds: 3600, options_seconds: [3600], note: 'Explicit cached content defaults to a 1-hour TTL, settable per cache; implicit caches are managed by the provider.' },
    price: { cache_read: 0.25, cache_write: { '3600': 1 }, note: 'Cached tokens billed at a reduced rate (about 25% of input on 2.5 models) plus storage per token-hour for explicit caches.' },
    prefix_order: ['system_instruction', 'tools', 'contents'],
    invalidation: [
      'Implicit hits need the same prefix at the start of the request; put large common content first.',
      'Explicit cached content is immutable: a changed prefix is a new cache.',
    ],
    notes: ['Minimums differ by model (about 1024 or 2048 tokens).'],
  },
};

/** Provider of a model id by its family name, or null. */
export function providerOfModel(model: string): CacheProvider | null {
  const m = model.trim().toLowerCase().replace(/^.*\//, '');
  if (m.startsWith('claude')) return 'anthropic';
  if (/^(gpt-|o\d|chatgpt|text-embedding)/.test(m)) return 'openai';
  if (m.startsWith('gemini')) return 'google';
  return null;
}

/** The model's minimum cacheable prefix under the provider's rules. */
export function minimumTokens(rules: CacheRules, model: string | null | undefined): number {
  const m = (model ?? '').trim().toLowerCase().replace(/^.*\//, '');
  let best: ModelMinimum | null = null;
  for (const e of rules.min_tokens_by_model) {
    if (m.startsWith(e.prefix) && (!best || e.prefix.length > best.prefix.length)) best = e;
  }
  return best?.min_tokens ?? rules.default_min_tokens;
}

/** How many tokens of a shared prefix the provider would serve from cache (0 below the minimum). */
export function cacheableTokens(rules: CacheRules, model: string | null | undefined, prefixTokens: number): number {
  const min = minimumTokens(rules, model);
  if (prefixTokens < min) return 0;
  if (rules.increment_tokens <= 1) return prefixTokens;
  return min + Math.floor((prefixTokens - min) / rules.increment_tokens) * rules.increment_tokens;
}

/** Rules as returned to a caller: the data with its date and source. */
export function rulesView(rules: CacheRules, model?: string | null) {
  return { ...rules, min_tokens: minimumTokens(rules, model), as_of: CACHE_RULES_AS_OF, source: CACHE_RULES_SOURCE };
}
