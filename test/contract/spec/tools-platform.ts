// Spec: "Tool catalogue > Pro tools > platform: keys" and "platform: other", with the API key
// resource's fields and "Limits" (gc_mint_api_key expiry: default 30 days, maximum 365).
import { t, type ContractContext, type ContractFile } from '../contract.js';

const KEY_VALUE = /^gc_[0-9a-f]{32}$/;

async function freshKeyId(c: ContractContext, name: string): Promise<string> {
  return (await c.ok('POST', '/v1/keys', { name })).key_id;
}

export default {
  area: 'MCP tools: platform (keys, other)',
  tools: [
    {
      tool: 'gc_mint_api_key',
      spec: 'gc_mint_api_key (default expiry 30 days, max 365; returned once); key format gc_ + 32 hex characters',
      args: { name: 'contract-minted' },
      fields: { key_id: t.string, key: t.pattern(KEY_VALUE), expires_at: t.timestamp },
      check: (data) => {
        const days = (Date.parse(data.expires_at) - Date.now()) / 86_400_000;
        if (days < 29.9 || days > 30.1) throw new Error(`default expiry should be 30 days, is ${days.toFixed(2)}`);
      },
    },
    {
      tool: 'gc_rebind_api_key',
      spec: 'gc_rebind_api_key (owner only; cross-user rebind gives 403)',
      args: async (c) => ({ key_id: await freshKeyId(c, 'contract-rebind'), project_id: c.fx.project_id }),
    },
    {
      tool: 'gc_revoke_api_key',
      spec: 'gc_revoke_api_key (cross-user gives 403); API key status: revoked after revocation',
      args: async (c) => ({ key_id: await freshKeyId(c, 'contract-mcp-revoke') }),
      fields: { status: t.const('revoked') },
    },
    {
      tool: 'gc_compress_manifest',
      spec: 'gc_compress_manifest (keeps inputSchema byte-for-byte)',
      args: {
        manifest: {
          tools: [
            { name: 'lookup', description: 'Looks a term up in the glossary. Matching ignores case and accents; unknown terms return suggestions.', inputSchema: { type: 'object', properties: { term: { type: 'string', minLength: 1 } }, required: ['term'] } },
          ],
        },
        max_description_chars: 40,
      },
      check: (data) => {
        const want = JSON.stringify({ type: 'object', properties: { term: { type: 'string', minLength: 1 } }, required: ['term'] });
        if (!JSON.stringify(data).includes(want)) throw new Error('the inputSchema was not kept byte for byte');
      },
    },
  ],
} satisfies ContractFile;
