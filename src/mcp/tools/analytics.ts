import { z } from 'zod';
import { defineTool } from '../tool.js';
import { countTokens } from '../../domain/compression/tokens.js';

export const analyticsTools = [
  defineTool({
    name: 'estimate_tokens',
    readOnly: true,
    category: 'analytics',
    plan: 'free',
    advisory: true,
    description: 'Accurate BPE token count, fast estimate (bytes/4), JSON estimate (bytes/2) and raw byte count.',
    input: z.object({ text: z.string(), model: z.string().max(100).optional() }).strict(),
    async handler({ text, model }, ctx) {
      const bytes = Buffer.byteLength(text, 'utf8');
      const accurate = await countTokens(ctx.call, text, model);
      return {
        result: {
          accurate_tokens: accurate.tokens,
          tokenizer: accurate.tokenizer,
          fast_estimate: Math.ceil(bytes / 4),
          json_estimate: Math.ceil(bytes / 2),
          bytes,
        },
      };
    },
  }),
];
