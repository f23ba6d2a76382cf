import { contextWindowFor, estimateCompressed, recommendForTokens, worthCompressing } from '../../../workers/shared/recommend.js';
import { CONTEXT_THRESHOLDS, contextLevel } from './thresholds.js';
import type { Call } from '../call.js';
import { countTokensMany } from '../compression/tokens.js';
import { invalidInput } from '../errors.js';

export const CONTEXT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

export interface AdviseContextInput {
  model?: string;
  context_window?: number;
  messages?: { role: (typeof CONTEXT_ROLES)[number]; content?: string; tokens?: number; id?: string }[];
  used_tokens?: number;
  incoming_tokens: number;
  keep_last: number;
}

/** Below the first threshold (40%) nothing needs doing; above it, the plan brings usage back under it. */
const TARGET_SHARE = CONTEXT_THRESHOLDS[CONTEXT_THRESHOLDS.length - 1]!.at;

interface Action {
  index: number;
  id: string | null;
  role: string;
  tokens: number;
  action: 'drop' | 'compress' | 'summarise';
  fidelity: string | null;
  tokens_after: number;
  saves: number;
  reason: string;
}

/**
 * advise_context: check_context_budget's thresholds applied to the messages themselves: which to drop
 * (old tool outputs), compress (large ones, at the fidelity the size rule gives) or summarise (old
 * turns), oldest and cheapest first, until usage with the incoming tokens is back under 40%.
 */
export async function adviseContext(call: Call, input: AdviseContextInput) {
  const window = input.context_window ?? contextWindowFor(input.model);
  if (!window) throw invalidInput('Give context_window, or a model whose window is known', [{ loc: ['context_window'], msg: 'Required for this model', type: 'missing' }]);
  const msgs = input.messages ?? [];
  const counted = await countTokensMany(call, msgs.filter((m) => m.tokens === undefined).map((m) => m.content!), input.model);
  let k = 0;
  const sized = msgs.map((m, i) => ({ index: i, id: m.id ?? null, role: m.role, tokens: m.tokens ?? counted[k++]! }));
  const used = input.messages ? sized.reduce((n, m) => n + m.tokens, 0) : input.used_tokens!;
  const total = used + input.incoming_tokens;
  const { level, advice } = contextLevel(total / window);
  const target = Math.floor(window * TARGET_SHARE);
  const actions: Action[] = [];
  let projected = total;
  const protectedFrom = Math.max(0, sized.length - input.keep_last);
  const open = sized.filter((m) => m.index < protectedFrom && m.role !== 'system' && m.role !== 'developer');
  const taken = new Set<number>();
  const add = (a: Action) => {
    actions.push(a);
    taken.add(a.index);
    projected -= a.saves;
  };
  if (projected > target) {
    // 1. Old tool outputs, oldest first: their content was used when they came back.
    for (const m of open) {
      if (projected <= target) break;
      if (m.role === 'tool' && m.tokens > 0) add({ ...m, action: 'drop', fidelity: null, tokens_after: 0, saves: m.tokens, reason: 'old tool output, already acted on' });
    }
    // 2. Large messages, largest first, at the size rule's fidelity.
    for (const m of [...open].sort((a, b) => b.tokens - a.tokens)) {
      if (projected <= target) break;
      if (taken.has(m.index) || !worthCompressing(m.tokens, window).worth || m.tokens < 300) continue;
      const rule = recommendForTokens(m.tokens, window);
      const after = estimateCompressed(m.tokens, rule.fidelity);
      if (after < m.tokens) add({ ...m, action: 'compress', fidelity: rule.fidelity, tokens_after: after, saves: m.tokens - after, reason: rule.reason });
    }
    // 3. Old turns, oldest first, folded into a summary (gc_session_summary) at the abstract budget.
    for (const m of open) {
      if (projected <= target) break;
      if (taken.has(m.index) || m.tokens === 0) continue;
      const after = estimateCompressed(m.tokens, 'abstract');
      if (after < m.tokens) add({ ...m, action: 'summarise', fidelity: 'abstract', tokens_after: after, saves: m.tokens - after, reason: 'older turn: keep its gist in a session summary' });
    }
  }
  const recommendations = [...advice];
  if (projected > target && total > target) {
    recommendations.push(input.messages ? `Even with every action usage stays at ${Math.round((projected / window) * 1000) / 10}%: clear the context (gc_session_summary) and start over with the summary.` : 'Send the messages to get a per-message plan.');
  }
  return {
    context_window: window,
    used_tokens: used,
    incoming_tokens: input.incoming_tokens,
    usage_percent: Math.round((total / window) * 1000) / 10,
    level,
    thresholds_percent: CONTEXT_THRESHOLDS.map((t) => t.at * 100).reverse(),
    target_percent: TARGET_SHARE * 100,
    actions: actions.sort((a, b) => a.index - b.index),
    tokens_saved: total - projected,
    projected_tokens: projected,
    projected_percent: Math.round((projected / window) * 1000) / 10,
    kept: { system_messages: sized.filter((m) => m.role === 'system' || m.role === 'developer').length, last_messages: sized.length - protectedFrom },
    recommendations,
  };
}
