// compare_prompt_versions (diff, token counts and input cost per model) and generate_rewrite_prompt
// (a shorter equivalent from the text compression use case, keeping every Mustache tag).
import type { Fidelity } from '../../../workers/shared/fidelity.js';
import { priceFor, type PriceEntry } from '../../providers/llm/prices.js';
import type { Call } from '../call.js';
import { compressText } from '../compression/text.js';
import type { Scope } from '../memory/memories.js';
import { getTemplate, getVersion, renderVersion, type Label, type VersionRow } from './templates.js';

export const DEFAULT_COMPARE_MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4'];
const PRICE_APIS = ['openai', 'anthropic', 'local'];

/** The dated price of a model under whichever API lists it. */
function priceOf(call: Call, model: string): PriceEntry | null {
  for (const api of PRICE_APIS) {
    const p = priceFor(call.services.llm.prices, api, model);
    if (p) return p;
  }
  return null;
}

const usd = (tokens: number, p: PriceEntry | null) => (p ? (tokens * p.input_usd_per_mtok) / 1e6 : null);

export interface VersionRef {
  version?: number;
  label?: Label;
}

export async function compareVersions(call: Call, s: Scope, id: string, input: { from: VersionRef; to: VersionRef; models: string[]; variables?: Record<string, unknown> }) {
  const db = call.services.db;
  const t = await getTemplate(db, s, id);
  const a = await getVersion(db, t, input.from);
  const b = await getVersion(db, t, input.to);
  // With variables, what is compared (and priced) is the prompt as sent, not the template text.
  const text = async (v: VersionRow) => (input.variables ? (await renderVersion(call, v, input.variables)).text : v.body);
  const [from, to] = [await text(a), await text(b)];
  const r = await call.compute('promptCompare', { from, to, fromLabel: `${t.name} v${a.number}`, toLabel: `${t.name} v${b.number}`, models: input.models });
  return {
    template_id: t.id,
    from_version: a.number,
    to_version: b.number,
    compared: input.variables ? 'rendered' : 'template',
    diff: r.unified_diff,
    added_lines: r.added_lines,
    removed_lines: r.removed_lines,
    identical: r.unified_diff === '',
    models: r.counts.map((c) => {
      const price = priceOf(call, c.model);
      const fromCost = usd(c.from, price);
      const toCost = usd(c.to, price);
      return {
        model: c.model,
        tokenizer: c.tokenizer,
        from_tokens: c.from,
        to_tokens: c.to,
        token_delta: c.to - c.from,
        price: price ? { api: price.api, input_usd_per_mtok: price.input_usd_per_mtok, effective_from: price.effective_from } : null,
        from_cost_usd: fromCost,
        to_cost_usd: toCost,
        cost_delta_usd: fromCost === null || toCost === null ? null : toCost - fromCost,
        cost_delta_per_1k_calls_usd: fromCost === null || toCost === null ? null : (toCost - fromCost) * 1000,
      };
    }),
  };
}

/** Fidelities from the asked one towards less aggressive: the first that keeps every tag and saves tokens wins. */
const LADDER: Fidelity[] = ['abstract', 'outline', 'balanced', 'detailed'];

export async function rewriteVersion(call: Call, s: Scope, id: string, input: { ref: VersionRef; fidelity: Fidelity; model?: string }) {
  const db = call.services.db;
  const t = await getTemplate(db, s, id);
  const v = await getVersion(db, t, input.ref);
  const tried: { fidelity: Fidelity; rewritten_tokens: number; keeps_tags: boolean; missing_tags: string[] }[] = [];
  let original = 0;
  // Paragraphs holding a tag are kept verbatim; the tag-free stretches between them are compressed.
  const parts = await call.compute('promptSegments', { body: v.body });
  for (const fidelity of LADDER.slice(Math.max(0, LADDER.indexOf(input.fidelity)))) {
    let candidate = '';
    for (const part of parts) {
      const core = part.text.trim();
      if (part.pinned || !core) {
        candidate += part.text;
        continue;
      }
      const lead = part.text.slice(0, part.text.indexOf(core));
      const tail = part.text.slice(lead.length + core.length);
      const c = await compressText(call, { text: core, fidelity, model: input.model ?? null });
      candidate += lead + (c.compressed_tokens < c.original_tokens && c.compressed_text.trim() ? c.compressed_text.trim() : core) + tail;
    }
    const check = await call.compute('promptRewriteCheck', { original: v.body, candidate, model: input.model ?? null });
    original = check.original_tokens;
    tried.push({ fidelity, rewritten_tokens: check.rewritten_tokens, keeps_tags: check.keeps_tags, missing_tags: check.missing_tags });
    if (check.keeps_tags && check.rewritten_tokens < check.original_tokens) {
      return {
        template_id: t.id,
        version: v.number,
        rewritten_prompt: candidate,
        original_tokens: check.original_tokens,
        rewritten_tokens: check.rewritten_tokens,
        tokens_saved: check.original_tokens - check.rewritten_tokens,
        savings_percent: Math.round(((check.original_tokens - check.rewritten_tokens) / check.original_tokens) * 1000) / 10,
        fidelity,
        tokenizer: check.tokenizer,
        variables_kept: true,
        attempts: tried,
      };
    }
  }
  // Nothing shorter kept every tag (or the prompt is too short to gain): the original is the answer.
  return {
    template_id: t.id,
    version: v.number,
    rewritten_prompt: v.body,
    original_tokens: original,
    rewritten_tokens: original,
    tokens_saved: 0,
    savings_percent: 0,
    fidelity: null,
    tokenizer: null,
    variables_kept: true,
    attempts: tried,
  };
}
