import type { ToolContext } from '../tool.js';
import { ToolError } from '../tool.js';

/** Token figures for a tool's input: exact BPE counts run in the pool, never on the event loop. */
export async function countInPool(ctx: ToolContext, text: string, model?: string | null): Promise<{ tokens: number; tokenizer: string }> {
  return ctx.services.pool.run('countTokens', { text, model: model ?? null }, ctx.signal);
}

/** A tool needs either text or a token count: this resolves whichever was given. */
export async function tokensOf(ctx: ToolContext, args: { text?: string | null; tokens?: number | null; model?: string | null }): Promise<number> {
  if (typeof args.tokens === 'number') return args.tokens;
  if (typeof args.text === 'string') return (await countInPool(ctx, args.text, args.model)).tokens;
  throw new ToolError('validation_error', 'Provide text or tokens');
}
