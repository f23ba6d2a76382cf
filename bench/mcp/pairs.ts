import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** One bench row: the same work over REST and over MCP. */
export interface Pair {
  name: string;
  /** Both sides do the same work: authentication, validation, one pool task, one usage event. */
  fair: boolean;
  rest: () => Promise<void>;
  mcp: () => Promise<void>;
}

export const SMALL = 'Estimate the tokens of this short sentence, please.';

/**
 * The bench's pairs against one service. REST compressions use a Free key (Free bypasses the
 * semantic cache, so /v1/compress runs every time, as optimize_for_model always does); MCP uses
 * `client`, connected with a Pro key. Every MCP tools/call writes a usage event and answers after it
 * commits; of these REST routes only /v1/compress does, so the token-count pair is not like for
 * like (kept for comparison with earlier figures).
 */
export function pairs(root: string, base: string, freeKey: string, client: Client): Pair[] {
  const doc = readFileSync(join(root, 'node_modules/typescript/README.md'), 'utf8');
  const rest = (path: string, body: unknown) => async (): Promise<void> => {
    const res = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${freeKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path} -> ${res.status}`);
    await res.arrayBuffer();
  };
  const mcp = (name: string, args: Record<string, unknown>) => async (): Promise<void> => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
  const compress = (text: string) => ({ text, fidelity: 'balanced', model: 'gpt-4o' });
  return [
    {
      name: `short compression, ${SMALL.length} chars (optimize_for_model vs /v1/compress; both write a usage event)`,
      fair: true,
      rest: rest('/v1/compress', compress(SMALL)),
      mcp: mcp('optimize_for_model', compress(SMALL)),
    },
    {
      name: `balanced compression, ${doc.length} chars (optimize_for_model vs /v1/compress, uncached)`,
      fair: true,
      rest: rest('/v1/compress', compress(doc)),
      mcp: mcp('optimize_for_model', compress(doc)),
    },
    {
      name: 'token count (estimate_tokens vs /v1/recommend; only MCP writes a usage event)',
      fair: false,
      rest: rest('/v1/recommend', { document: SMALL }),
      mcp: mcp('estimate_tokens', { text: SMALL }),
    },
  ];
}
