import { decode, encode, ToonDecodeError } from '@toon-format/toon';
import { z } from 'zod';
import { countTokensMany } from '../../../domain/compression/tokens.js';
import { invalidInput } from '../../../domain/errors.js';
import { defineTool } from '../../tool.js';
import { int } from '../outputs.js';
import { savingsPercent } from '../../../../workers/shared/stats.js';

/** TOON (Token-Oriented Object Notation) through the official @toon-format/toon package, so output matches it exactly. */
const MAX_TOON_CHARS = 2_000_000;
const DELIMITER = { comma: ',', tab: '\t', pipe: '|' } as const;

export const toonTools = [
  defineTool({
    name: 'toon_encode',
    description:
      'Encodes JSON data as TOON (Token-Oriented Object Notation; official @toon-format/toon encoder): uniform arrays of objects become tables. Give data (any JSON value) or json (a JSON string).',
    input: z
      .object({
        data: z.unknown().optional().describe('Any JSON value'),
        json: z.string().max(MAX_TOON_CHARS).optional().describe('The same as a JSON string'),
        indent: z.number().int().min(1).max(8).default(2),
        delimiter: z.enum(['comma', 'tab', 'pipe']).default('comma'),
      })
      .strict()
      .refine((a) => (a.data === undefined) !== (a.json === undefined), { message: 'Give exactly one of data or json', path: ['data'] }),
    output: z.looseObject({
      toon: z.string(),
      json_tokens: int,
      toon_tokens: int,
      tokens_saved: int,
      savings_percent: z.number(),
      options: z.looseObject({ indent: int, delimiter: z.enum(['comma', 'tab', 'pipe']) }),
    }),
    async handler(args, ctx) {
      let value: unknown = args.data;
      if (args.json !== undefined) {
        try {
          value = JSON.parse(args.json);
        } catch (err) {
          throw invalidInput('json is not valid JSON', [{ loc: ['json'], msg: (err as Error).message, type: 'value_error' }]);
        }
      }
      const toon = encode(value, { indentSize: args.indent, delimiter: DELIMITER[args.delimiter] });
      const jsonText = args.json ?? JSON.stringify(value);
      const [jsonTokens, toonTokens] = await countTokensMany(ctx.call, [jsonText, toon]);
      ctx.call.report({ inputTokens: jsonTokens!, outputTokens: toonTokens!, inputText: jsonText });
      return {
        result: {
          toon,
          json_tokens: jsonTokens!,
          toon_tokens: toonTokens!,
          tokens_saved: jsonTokens! - toonTokens!,
          savings_percent: savingsPercent(jsonTokens!, toonTokens!),
          options: { indent: args.indent, delimiter: args.delimiter },
        },
      };
    },
  }),
  defineTool({
    name: 'toon_decode',
    advisory: true,
    description: 'Decodes TOON text back to JSON (official @toon-format/toon decoder; strict by default).',
    input: z
      .object({
        toon: z.string().max(MAX_TOON_CHARS),
        indent: z.number().int().min(1).max(8).default(2),
        strict: z.boolean().default(true),
      })
      .strict(),
    // data is whatever JSON value the TOON held.
    output: z.looseObject({ data: z.unknown(), json: z.string(), toon_tokens: int }),
    async handler(args, ctx) {
      let data: unknown;
      try {
        data = decode(args.toon, { indentSize: args.indent, strict: args.strict });
      } catch (err) {
        if (err instanceof ToonDecodeError || err instanceof SyntaxError || err instanceof RangeError || err instanceof TypeError) {
          throw invalidInput(`Invalid TOON: ${(err as Error).message}`, [{ loc: ['toon'], msg: (err as Error).message, type: 'value_error' }]);
        }
        throw err;
      }
      const json = JSON.stringify(data);
      return { result: { data, json, toon_tokens: (await countTokensMany(ctx.call, [args.toon]))[0]! } };
    },
  }),
];
