import type { Call } from '../call.js';
import { CACHE_PROVIDERS, CACHE_RULES_AS_OF, type CacheProvider } from './rules.js';
import { prefixVerdicts, resolveProvider, TOKENIZER_NOTE } from './providers.js';

export interface DiagnoseInput {
  prompt_a: string;
  prompt_b: string;
  provider?: CacheProvider;
  model?: string;
  context_tokens: number;
}

/** Line and column (1-based) of a character offset. */
function lineCol(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    last = i;
  }
  return { line, column: offset - last };
}

const snippet = (text: string, at: number) => text.slice(Math.max(0, at - 40), at + 40);

/**
 * diagnose_cache_miss: where two prompts part (first differing token, its character offset and the
 * tokens around it), and whether the prefix they share is long enough for the provider to cache.
 */
export async function diagnoseCacheMiss(call: Call, input: DiagnoseInput) {
  const provider = resolveProvider(input.provider, input.model);
  const d = await call.compute('cacheDiff', { a: input.prompt_a, b: input.prompt_b, model: input.model ?? null, context: input.context_tokens });
  const providers = prefixVerdicts(provider ? [provider] : [...CACHE_PROVIDERS], input.model, d.first_diff_token);
  const strip = (toks: { id: number; text: string; char: number }[]) => toks.map((t) => ({ token_id: t.id, text: t.text, char_offset: t.char }));
  const where = lineCol(input.prompt_a, d.first_diff_char);
  let explanation: string;
  if (d.identical) explanation = 'The prompts are identical: a miss on the second one comes from the cache having expired (TTL), another model or tool set, or a prefix under the minimum.';
  else {
    const cached = providers.filter((p) => p.above_minimum).map((p) => p.provider);
    explanation =
      `The prompts share ${d.first_diff_token} tokens, then differ at token ${d.first_diff_token} (character ${d.first_diff_char}, line ${where.line} column ${where.column}). ` +
      (cached.length
        ? `The shared prefix is at or above the minimum for ${cached.join(', ')}: up to that point a hit is possible; everything after it is read at full price.`
        : 'The shared prefix is below every considered minimum: nothing of it can be cached. Move the differing content later, or grow the stable prefix.');
  }
  return {
    identical: d.identical,
    first_diff_token: d.identical ? null : d.first_diff_token,
    first_diff_token_char_offset: d.identical ? null : d.first_diff_token_char,
    first_diff_char_offset: d.identical ? null : d.first_diff_char,
    first_diff_line: d.identical ? null : where.line,
    first_diff_column: d.identical ? null : where.column,
    shared_prefix_tokens: d.first_diff_token,
    tokens_a: d.tokens_a,
    tokens_b: d.tokens_b,
    tokens_before: strip(d.before),
    tokens_after_a: strip(d.after_a),
    tokens_after_b: strip(d.after_b),
    snippet_a: d.identical ? null : snippet(input.prompt_a, d.first_diff_char),
    snippet_b: d.identical ? null : snippet(input.prompt_b, d.first_diff_char),
    position_approximate: d.approximate,
    providers,
    explanation,
    tokenizer: d.tokenizer,
    tokenizer_note: TOKENIZER_NOTE,
    rules_as_of: CACHE_RULES_AS_OF,
  };
}
