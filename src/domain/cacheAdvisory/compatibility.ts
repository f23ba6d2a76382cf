import type { Call } from '../call.js';
import { countTokens } from '../compression/tokens.js';
import { CACHE_RULES, cacheableTokens, minimumTokens, rulesView, type CacheProvider } from './rules.js';
import { requireProvider, TOKENIZER_NOTE } from './providers.js';

export interface CompatibilityInput {
  provider?: CacheProvider;
  model?: string;
  prompt?: string;
  prompt_tokens?: number;
  /** Token positions where the caller marks (or would mark) cache breakpoints. */
  breakpoints?: number[];
  ttl_seconds?: number;
}

interface Check {
  check: string;
  ok: boolean;
  detail: string;
}

/**
 * assess_cache_compatibility: whether a prompt, as set up, can be cached by the provider: length
 * against the model minimum, breakpoint count and placement, TTL option. Each rule checked is listed.
 */
export async function assessCompatibility(call: Call, input: CompatibilityInput) {
  const provider = requireProvider(input.provider, input.model);
  const rules = CACHE_RULES[provider];
  const tokens = input.prompt_tokens ?? (await countTokens(call, input.prompt!, input.model)).tokens;
  const min = minimumTokens(rules, input.model);
  const checks: Check[] = [];
  checks.push({
    check: 'minimum_length',
    ok: tokens >= min,
    detail: tokens >= min ? `${tokens} tokens reach the ${min}-token minimum.` : `${tokens} tokens are under the ${min}-token minimum: the provider will not cache this prompt.`,
  });
  const bps = [...new Set(input.breakpoints ?? [])].sort((a, b) => a - b);
  if (rules.mode === 'explicit') {
    if (!bps.length) checks.push({ check: 'breakpoints', ok: false, detail: `${provider} caches only marked prefixes: add a breakpoint (${rules.marker}).` });
    else {
      const tooMany = rules.max_breakpoints !== null && bps.length > rules.max_breakpoints;
      checks.push({ check: 'breakpoint_count', ok: !tooMany, detail: tooMany ? `${bps.length} breakpoints; at most ${rules.max_breakpoints} are allowed (the request is rejected).` : `${bps.length} of at most ${rules.max_breakpoints} breakpoints.` });
      const short = bps.filter((b) => b < min);
      const past = bps.filter((b) => b > tokens);
      checks.push({
        check: 'breakpoint_positions',
        ok: short.length === 0 && past.length === 0,
        detail: [
          short.length ? `Breakpoints at tokens ${short.join(', ')} close prefixes under the ${min}-token minimum: they never cache.` : '',
          past.length ? `Breakpoints at tokens ${past.join(', ')} lie past the end of the prompt (${tokens} tokens).` : '',
        ].filter(Boolean).join(' ') || 'Every breakpoint closes a prefix at or above the minimum.',
      });
    }
  } else if (bps.length) {
    checks.push({ check: 'breakpoints', ok: true, detail: `${provider} does not use breakpoints (${rules.mode} caching): the given positions are ignored.` });
  }
  if (input.ttl_seconds !== undefined) {
    const ok = rules.ttl.options_seconds.includes(input.ttl_seconds);
    checks.push({ check: 'ttl', ok, detail: ok ? `TTL ${input.ttl_seconds} s is offered.` : `TTL ${input.ttl_seconds} s is not offered; options: ${rules.ttl.options_seconds.join(', ')} s. ${rules.ttl.note}` });
  }
  const cacheable = rules.mode === 'explicit'
    ? Math.max(0, ...bps.filter((b) => b >= min && b <= tokens))
    : cacheableTokens(rules, input.model, tokens);
  return {
    provider,
    model: input.model ?? null,
    compatible: checks.every((c) => c.ok),
    prompt_tokens: tokens,
    token_count: input.prompt_tokens !== undefined ? 'given' : provider === 'openai' ? 'exact' : 'approximate',
    min_cacheable_tokens: min,
    cacheable_tokens: cacheable,
    checks,
    rules: rulesView(rules, input.model),
    tokenizer_note: TOKENIZER_NOTE,
  };
}
