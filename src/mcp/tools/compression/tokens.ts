import { countTokens } from '../../../domain/compression/tokens.js';
import { invalidInput } from '../../../domain/errors.js';
import type { ToolContext } from '../../tool.js';

/** A tool needs either text or a token count: this resolves whichever was given. */
export async function tokensOf(ctx: ToolContext, args: { text?: string | null; tokens?: number | null; model?: string | null }): Promise<number> {
  if (typeof args.tokens === 'number') return args.tokens;
  if (typeof args.text === 'string') return (await countTokens(ctx.call, args.text, args.model)).tokens;
  throw invalidInput('Provide text or tokens', [{ loc: ['text'], msg: 'Provide text or tokens', type: 'missing' }]);
}
