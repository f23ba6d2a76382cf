// recommend_compression: which of the service's tools fits a content, at which level, and whether it
// pays at all. The content is classified in the pool (workers/tools/classify.ts); the level follows the
// same size and context-window rule as recommend_fidelity.
import { budgetFor, type Fidelity } from '../../../workers/shared/fidelity.js';
import { contextWindowFor, recommendForTokens, worthCompressing } from '../../../workers/shared/recommend.js';
import type { Call } from '../call.js';
import type { ContentKind } from '../../../workers/tools/classify.js';

/** What the text engine does with each kind it compresses (docs/text-engine.md). */
const TEXT_KINDS: Record<Exclude<ContentKind, 'code' | 'cli_output'>, string> = {
  prose: 'Prose: a faithful skeleton at the level below.',
  json: 'JSON without a uniform array: cut into whole records and keys, each elision marker naming what it hides.',
  yaml: 'YAML: cut into whole keys with what they hold, each elision marker naming the keys it hides.',
  xml: 'XML: cut into whole elements (error and failure entries first), comments apart.',
  html: 'An HTML page: compressed as its text, without tags, scripts or styles; marker ids expand to the page as sent.',
};

export async function recommendCompression(
  call: Call,
  input: { text: string; query?: string; model?: string; context_window?: number; used_tokens?: number; filename?: string; command?: string },
) {
  const c = await call.compute('classifyContent', { text: input.text, filename: input.filename ?? null, command: input.command ?? null }, { field: 'text' });
  const window = input.context_window ?? contextWindowFor(input.model) ?? null;
  const rule = recommendForTokens(c.tokens, window);
  const { worth, share } = worthCompressing(c.tokens, window, input.used_tokens ?? 0);
  const fidelity: Fidelity = worth ? rule.fidelity : 'raw';
  const reasons: string[] = [];
  let tool: string;
  let args: Record<string, unknown>;
  switch (c.kind) {
    case 'code':
      tool = 'compress_codebase';
      args = { files: [{ path: input.filename ?? `input.${c.language}`, content: '<the file>' }], fidelity, ...(input.query ? { query: input.query } : {}) };
      reasons.push(`${c.language} source: a code skeleton keeps every signature verbatim (REST: /v1/compress-code).`);
      break;
    case 'cli_output':
      tool = 'filter_cli_output';
      args = { output: '<the output>', ...(input.command ? { command: input.command } : {}) };
      reasons.push(`Output of ${c.cli_tool === 'generic' ? 'a command' : c.cli_tool}: failures, errors and the summary are what matter; passing tests and progress fold away.`);
      break;
    default:
      if (c.kind === 'json' && c.uniform_array) {
        tool = 'toon_encode';
        args = { json: '<the JSON>' };
        reasons.push('JSON with a uniform array of objects: TOON writes it as a table, losslessly.');
        break;
      }
      // Other JSON, YAML, XML, pages and prose: the text engine, which cuts each into whole values or reads the page's text.
      tool = input.query ? 'prune_by_relevance' : 'optimize_for_model';
      args = input.query ? { text: '<the text>', query: input.query, budget_tokens: budgetFor(c.tokens, fidelity === 'raw' ? 'detailed' : fidelity) } : { text: '<the text>', model: input.model ?? 'gpt-4o', fidelity };
      reasons.push(`${TEXT_KINDS[c.kind]}${input.query ? ' With a question, what answers it is kept within a budget.' : ''}`);
  }
  reasons.push(
    worth
      ? `${c.tokens} tokens${share !== null ? `, ${Math.round(share * 100)}% of the context window with what is used` : ''}: ${rule.reason}`
      : `${c.tokens} tokens: small enough to send as is.`,
  );
  call.report({ inputTokens: c.tokens, outputTokens: c.tokens, model: input.model ?? null, inputText: input.text });
  return {
    should_compress: worth,
    kind: c.kind,
    language: c.language,
    cli_tool: c.cli_tool,
    recommended_tool: worth ? tool : null,
    recommended_arguments: worth ? args : null,
    fidelity,
    original_tokens: c.tokens,
    estimated_tokens_after: worth && !(c.kind === 'json' && c.uniform_array) ? Math.min(c.tokens, rule.estimated) : c.tokens,
    context_window: window,
    reasons,
  };
}
