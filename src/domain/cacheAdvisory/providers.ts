import { invalidInput } from '../errors.js';
import { CACHE_PROVIDERS, CACHE_RULES, cacheableTokens, minimumTokens, providerOfModel, type CacheProvider, type CacheRules } from './rules.js';

/** Token positions are counted with the service's tokenizer (o200k_base / cl100k_base by model). */
export const TOKENIZER_NOTE =
  "Token positions use the service's tokenizer (o200k_base, or cl100k_base for older OpenAI models): exact for OpenAI models, an approximation for Anthropic and Gemini, whose tokenizers are not public.";

/** The provider a call is about: the one named, else the model's family; a mismatch is an input error. */
export function resolveProvider(provider: CacheProvider | undefined, model: string | undefined): CacheProvider | null {
  const byModel = model ? providerOfModel(model) : null;
  if (provider && byModel && provider !== byModel) {
    throw invalidInput(`Model ${model} belongs to ${byModel}, not ${provider}`, [{ loc: ['model'], msg: `model of provider ${byModel}`, type: 'value_error.provider_mismatch' }]);
  }
  return provider ?? byModel;
}

/** Like resolveProvider, but one of provider or a known model is required. */
export function requireProvider(provider: CacheProvider | undefined, model: string | undefined): CacheProvider {
  const p = resolveProvider(provider, model);
  if (!p) {
    throw invalidInput(`Give provider (${CACHE_PROVIDERS.join(', ')}) or a model of one of them`, [{ loc: ['provider'], msg: 'provider or a known model is required', type: 'missing' }]);
  }
  return p;
}

/** Whether a shared prefix of `tokens` is cached under each provider considered. */
export function prefixVerdicts(providers: CacheProvider[], model: string | undefined, tokens: number) {
  return providers.map((p) => {
    const rules: CacheRules = CACHE_RULES[p];
    const m = model && providerOfModel(model) === p ? model : undefined;
    const min = minimumTokens(rules, m);
    return {
      provider: p,
      model: m ?? null,
      min_cacheable_tokens: min,
      above_minimum: tokens >= min,
      cacheable_tokens: cacheableTokens(rules, m, tokens),
    };
  });
}
