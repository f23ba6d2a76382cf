import type { ToolContext } from '../tool.js';

/** Exact token counts of many texts, each counted in the pool (never on the event loop). */
export async function countMany(ctx: ToolContext, texts: readonly string[], model?: string | null): Promise<number[]> {
  return (await countManyTasks(ctx, texts, model)).tokens;
}

/** countMany, also reporting how many pool tasks it took (one when 'countTokensMany' is registered). */
export async function countManyTasks(ctx: ToolContext, texts: readonly string[], model?: string | null): Promise<{ tokens: number[]; tasks: number }> {
  if (texts.length === 0) return { tokens: [], tasks: 0 };
  const { tokens } = await ctx.services.pool.run('countTokensMany', { texts: [...texts], model: model ?? null }, ctx.signal);
  return { tokens, tasks: 1 };
}

export async function countOne(ctx: ToolContext, text: string, model?: string | null): Promise<number> {
  return text.length === 0 ? 0 : (await ctx.services.pool.run('countTokens', { text, model: model ?? null }, ctx.signal)).tokens;
}
