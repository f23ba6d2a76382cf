import { budgetFor, type Fidelity } from '../../../workers/shared/fidelity.js';
import { tokenizerFor } from '../../../workers/shared/tokenizerName.js';
import { costMicros, priceFor, type PriceEntry, type PriceTable } from '../../providers/llm/index.js';
import type { Call } from '../call.js';
import { invalid } from '../errors.js';
import { countTokensMany } from '../compression/tokens.js';

export interface CostEstimateInput {
  text?: string;
  input_tokens?: number;
  output_tokens: number;
  models?: string[];
  fidelity?: Exclude<Fidelity, 'raw'>;
  calls: number;
}

const APIS = ['openai', 'anthropic', 'local'] as const;
const usd = (micros: number) => Math.round(micros) / 1e6;

/** The entry of a model under any API it is priced for (model ids do not overlap across APIs). */
function lookup(table: PriceTable, model: string, on: Date): PriceEntry | null {
  for (const api of APIS) {
    const e = priceFor(table, api, model, on);
    if (e) return e;
  }
  return null;
}

/**
 * What a prompt costs per model from the dated price table (estimate_model_cost): input and output
 * tokens at list prices, times `calls`; with `fidelity`, also the cost with the input compressed to
 * that level's budget (an upper bound of the compressed size) and the difference.
 */
export async function estimateModelCost(call: Call, table: PriceTable, input: CostEstimateInput) {
  const now = new Date();
  const names = input.models?.length ? [...new Set(input.models)] : [...new Set(table.entries.filter((e) => e.api !== 'local' && e.effective_from <= now.toISOString().slice(0, 10)).map((e) => e.model))];
  const priced = names.map((model) => ({ model, entry: lookup(table, model, now) }));
  const unpriced = priced.filter((p) => !p.entry).map((p) => p.model);
  if (unpriced.length === priced.length) {
    const known = [...new Set(table.entries.map((e) => e.model))].join(', ');
    throw invalid(`No price for ${unpriced.join(', ')}; priced models: ${known}`);
  }
  // Token counts per tokenizer family, exact for OpenAI models; other providers' tokenizers are not public.
  const counts = new Map<string, number>();
  if (input.text !== undefined) {
    for (const { model, entry } of priced) {
      if (!entry) continue;
      const family = tokenizerFor(model);
      if (!counts.has(family)) counts.set(family, (await countTokensMany(call, [input.text], model))[0]!);
    }
  }
  const rows = priced.flatMap(({ model, entry }) => {
    if (!entry) return [];
    const inputTokens = input.text !== undefined ? counts.get(tokenizerFor(model))! : input.input_tokens!;
    const perCall = costMicros(entry, inputTokens, input.output_tokens)!;
    const row: Record<string, unknown> = {
      model,
      priced_as: entry.model,
      api: entry.api,
      effective_from: entry.effective_from,
      input_usd_per_mtok: entry.input_usd_per_mtok,
      output_usd_per_mtok: entry.output_usd_per_mtok,
      input_tokens: inputTokens,
      output_tokens: input.output_tokens,
      token_count: input.text === undefined ? 'given' : entry.api === 'openai' ? 'exact' : 'approximate',
      input_usd: usd(inputTokens * entry.input_usd_per_mtok * input.calls),
      output_usd: usd(input.output_tokens * entry.output_usd_per_mtok * input.calls),
      total_usd: usd(perCall * input.calls),
    };
    if (input.fidelity) {
      const compressedTokens = budgetFor(inputTokens, input.fidelity);
      const compressed = costMicros(entry, compressedTokens, input.output_tokens)! * input.calls;
      row.compressed = { fidelity: input.fidelity, input_tokens: compressedTokens, total_usd: usd(compressed), savings_usd: usd(perCall * input.calls - compressed) };
    }
    return [row];
  });
  rows.sort((a, b) => (a.total_usd as number) - (b.total_usd as number));
  call.report({ inputTokens: input.text !== undefined ? [...counts.values()][0] ?? 0 : 0, outputTokens: 0, inputText: input.text ?? null });
  return { price_table_as_of: table.as_of, calls: input.calls, models: rows, unpriced, cheapest: rows[0]?.model ?? null };
}
