// Cost of a provider call from a dated price table. The table is data: list prices in US dollars per
// million tokens, each entry valid from its date (a later entry for the same model supersedes it).
// Operators keep it current with LLM_PRICES_FILE (same JSON shape; its entries are added to these).
import { readFileSync } from 'node:fs';

export interface PriceEntry {
  /** Which API the model is served through: openai, anthropic or local. */
  api: string;
  /** Model id; also matches dated snapshots that extend it with '-' (gpt-4o matches gpt-4o-2024-08-06). */
  model: string;
  input_usd_per_mtok: number;
  output_usd_per_mtok: number;
  /** YYYY-MM-DD: the price applies to calls on or after this day. */
  effective_from: string;
}

export interface PriceTable {
  /** When the table was last checked against the providers' published prices. */
  as_of: string;
  entries: PriceEntry[];
}

/** Published list prices as of the date below (standard tier, no batch or cache discounts). */
export const DEFAULT_PRICES: PriceTable = {
  as_of: '2025-06-01',
  entries: [
    { api: 'openai', model: 'gpt-4o', input_usd_per_mtok: 2.5, output_usd_per_mtok: 10, effective_from: '2024-10-01' },
    { api: 'openai', model: 'gpt-4o-mini', input_usd_per_mtok: 0.15, output_usd_per_mtok: 0.6, effective_from: '2024-07-18' },
    { api: 'openai', model: 'gpt-4.1', input_usd_per_mtok: 2, output_usd_per_mtok: 8, effective_from: '2025-04-14' },
    { api: 'openai', model: 'gpt-4.1-mini', input_usd_per_mtok: 0.4, output_usd_per_mtok: 1.6, effective_from: '2025-04-14' },
    { api: 'openai', model: 'gpt-4.1-nano', input_usd_per_mtok: 0.1, output_usd_per_mtok: 0.4, effective_from: '2025-04-14' },
    { api: 'openai', model: 'o3-mini', input_usd_per_mtok: 1.1, output_usd_per_mtok: 4.4, effective_from: '2025-01-31' },
    { api: 'anthropic', model: 'claude-3-5-haiku', input_usd_per_mtok: 0.8, output_usd_per_mtok: 4, effective_from: '2024-11-04' },
    { api: 'anthropic', model: 'claude-3-5-sonnet', input_usd_per_mtok: 3, output_usd_per_mtok: 15, effective_from: '2024-06-20' },
    { api: 'anthropic', model: 'claude-3-7-sonnet', input_usd_per_mtok: 3, output_usd_per_mtok: 15, effective_from: '2025-02-24' },
    { api: 'anthropic', model: 'claude-sonnet-4', input_usd_per_mtok: 3, output_usd_per_mtok: 15, effective_from: '2025-05-22' },
    { api: 'anthropic', model: 'claude-opus-4', input_usd_per_mtok: 15, output_usd_per_mtok: 75, effective_from: '2025-05-22' },
    // The local server's model: a nominal price, so the cost path is exercised end to end without a real provider.
    { api: 'local', model: 'gc-local', input_usd_per_mtok: 1, output_usd_per_mtok: 2, effective_from: '2026-01-01' },
  ],
};

export function loadPriceTable(file: string | null): PriceTable {
  if (!file) return DEFAULT_PRICES;
  const extra = JSON.parse(readFileSync(file, 'utf8')) as PriceTable;
  if (!Array.isArray(extra.entries)) throw new Error(`LLM_PRICES_FILE ${file}: no entries array`);
  for (const e of extra.entries) {
    if (typeof e.api !== 'string' || typeof e.model !== 'string' || !(e.input_usd_per_mtok >= 0) || !(e.output_usd_per_mtok >= 0) || !/^\d{4}-\d{2}-\d{2}$/.test(e.effective_from)) {
      throw new Error(`LLM_PRICES_FILE ${file}: bad entry ${JSON.stringify(e)}`);
    }
  }
  return { as_of: extra.as_of ?? DEFAULT_PRICES.as_of, entries: [...DEFAULT_PRICES.entries, ...extra.entries] };
}

/** The entry for a model on a day: the longest matching model id, then the latest effective date not after the day. */
export function priceFor(table: PriceTable, api: string, model: string, on: Date = new Date()): PriceEntry | null {
  const day = on.toISOString().slice(0, 10);
  const m = model.toLowerCase();
  let best: PriceEntry | null = null;
  for (const e of table.entries) {
    if (e.api !== api || e.effective_from > day) continue;
    const id = e.model.toLowerCase();
    if (m !== id && !m.startsWith(`${id}-`) && !m.startsWith(`${id}:`)) continue;
    if (!best || id.length > best.model.length || (id.length === best.model.length && e.effective_from > best.effective_from)) best = e;
  }
  return best;
}

/** Cost in micro-dollars (1e-6 USD): tokens × USD per million tokens. Null when the model has no price or usage is unknown. */
export function costMicros(entry: PriceEntry | null, inputTokens: number | null, outputTokens: number | null): number | null {
  if (!entry || inputTokens === null || outputTokens === null) return null;
  return Math.round(inputTokens * entry.input_usd_per_mtok + outputTokens * entry.output_usd_per_mtok);
}
