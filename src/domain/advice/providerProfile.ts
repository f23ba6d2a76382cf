import { contextWindowFor, MODEL_CONTEXT_WINDOWS } from '../../../workers/shared/recommend.js';
import { tokenizerFor } from '../../../workers/shared/tokenizerName.js';
import { priceFor, type PriceTable } from '../../providers/llm/prices.js';
import { CACHE_RULES, providerOfModel, rulesView, type CacheProvider } from '../cacheAdvisory/rules.js';
import { notFound } from '../errors.js';

const TOKENIZERS: Record<CacheProvider, (model: string | null) => { name: string; exact: boolean; note: string }> = {
  openai: (m) => ({ name: tokenizerFor(m), exact: true, note: 'Counts here are exact for OpenAI models.' }),
  anthropic: () => ({ name: 'anthropic (not public)', exact: false, note: 'Counted here with o200k_base as an approximation; Anthropic counts usually run somewhat higher.' }),
  google: () => ({ name: 'gemini SentencePiece (not public here)', exact: false, note: 'Counted here with o200k_base as an approximation.' }),
};

function pricing(table: PriceTable, provider: CacheProvider, model: string) {
  const e = provider === 'google' ? null : priceFor(table, provider, model);
  if (!e) return null;
  const rules = CACHE_RULES[provider];
  return {
    priced_as: e.model,
    input_usd_per_mtok: e.input_usd_per_mtok,
    output_usd_per_mtok: e.output_usd_per_mtok,
    cached_input_usd_per_mtok: Math.round(e.input_usd_per_mtok * rules.price.cache_read * 1e6) / 1e6,
    cache_write_usd_per_mtok: Object.fromEntries(Object.entries(rules.price.cache_write).map(([ttl, m]) => [ttl, Math.round(e.input_usd_per_mtok * m * 1e6) / 1e6])),
    effective_from: e.effective_from,
    table_as_of: table.as_of,
  };
}

/** Models this service has data on for a provider: from the price table and the context-window table. */
function knownModels(table: PriceTable, provider: CacheProvider): string[] {
  const names = new Set<string>();
  for (const e of table.entries) if (e.api === provider) names.add(e.model);
  for (const k of Object.keys(MODEL_CONTEXT_WINDOWS)) if (providerOfModel(k) === provider) names.add(k);
  return [...names].sort();
}

function modelProfile(table: PriceTable, provider: CacheProvider, model: string) {
  return {
    model,
    provider,
    context_window: contextWindowFor(model),
    pricing: pricing(table, provider, model),
    tokenizer: TOKENIZERS[provider](model),
    caching: rulesView(CACHE_RULES[provider], model),
  };
}

/**
 * get_provider_profile: what this service knows about a provider or one of its models, assembled from
 * its own data (context-window table, dated price table, dated caching rules, tokenizer choice).
 */
export function providerProfile(table: PriceTable, input: { provider?: CacheProvider; model?: string }) {
  const byModel = input.model ? providerOfModel(input.model) : null;
  if (input.model) {
    const provider = input.provider ?? byModel;
    if (!provider || (input.provider && byModel && input.provider !== byModel)) {
      throw notFound(`No profile for model ${input.model}${input.provider ? ` under ${input.provider}` : ''}; known providers: anthropic, openai, google`);
    }
    const p = modelProfile(table, provider, input.model);
    if (p.context_window === null && p.pricing === null) throw notFound(`Model ${input.model} is not in this service's tables; known ${provider} models: ${knownModels(table, provider).join(', ')}`);
    return { kind: 'model', ...p };
  }
  const provider = input.provider!;
  const models = knownModels(table, provider).map((m) => {
    const p = modelProfile(table, provider, m);
    return { model: m, context_window: p.context_window, input_usd_per_mtok: p.pricing?.input_usd_per_mtok ?? null, output_usd_per_mtok: p.pricing?.output_usd_per_mtok ?? null, min_cacheable_tokens: p.caching.min_tokens };
  });
  return { kind: 'provider', provider, models, tokenizer: TOKENIZERS[provider](null), caching: rulesView(CACHE_RULES[provider]), price_table_as_of: table.as_of };
}
