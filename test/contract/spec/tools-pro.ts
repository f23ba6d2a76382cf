// Spec: "MCP surface > Tool catalogue > Pro tools (plan:pro)": the advisory, compression and general
// rows (knowledge-base and platform rows have files of their own). The catalogue names few result
// fields for these rows; the rest of each result is "not shown".
import { sampleDocument } from '../../helpers/server.js';
import { t, type ContractFile } from '../contract.js';
import { PYTHON_SAMPLE } from './compress.js';

const ORIGINAL = 'The API allows 50 requests per minute per key. Never share your API key with anyone. Keys expire after 90 days.';
const COMPRESSED = 'The API allows 500 requests per minute per key. Keys expire after 90 days.';

const BUILD_LOG = [
  '> tsc -p tsconfig.json',
  ...Array.from({ length: 40 }, (_, i) => `[${String(i).padStart(2, '0')}] compiling src/module${i}.ts`),
  "src/routes/keys.ts:42:7 - error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
  'See https://example.test/errors/TS2345 for request 7f1c7a52-9a0c-4f69-bb1c-2f6f2a3f9f10',
  ...Array.from({ length: 40 }, (_, i) => `[${String(i + 40).padStart(2, '0')}] compiling src/module${i + 40}.ts`),
  'Found 1 error.',
].join('\n');

const MANIFEST_TOOLS = [
  {
    name: 'search_issues',
    description: 'Searches the issue tracker. Supports **full-text** queries, label filters and pagination. Results are ordered by relevance, then by the last update time.',
    inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'Search text' }, labels: { type: 'array', items: { type: 'string' } } }, required: ['query'] },
  },
  {
    name: 'create_issue',
    description: 'Creates an issue in the given repository. The title is required; the body accepts Markdown. Returns the issue number and its URL.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } }, required: ['title'] },
  },
];

export default {
  area: 'MCP tools: pro (advisory, compression, general)',
  tools: [
    // advisory
    { tool: 'check_blind_spots', spec: 'advisory: check_blind_spots', args: { original_text: ORIGINAL, compressed_text: COMPRESSED } },
    // compression
    {
      tool: 'compress_codebase',
      spec: 'compression: compress_codebase',
      args: { files: [{ path: 'pricing.py', content: PYTHON_SAMPLE }, { path: 'cli.py', content: 'from pricing import invoice\n\n\ndef main():\n    return invoice(None, [])\n' }], query: 'invoice total', token_budget: 400 },
    },
    {
      tool: 'compress_mcp_registry',
      spec: 'compression: compress_mcp_registry',
      args: { tools: MANIFEST_TOOLS, max_description_chars: 60 },
    },
    {
      tool: 'compress_meta_tokens',
      spec: 'compression: compress_meta_tokens (lossless, dictionary symbols, reversible)',
      args: { text: sampleDocument() },
      fields: { dictionary: t.object },
      check: async (data, c) => {
        // "reversible": decoding the result gives the input back.
        const back = await c.tool('compress_meta_tokens', { mode: 'decompress', encoded: data.encoded, dictionary: data.dictionary });
        if (back.text !== sampleDocument()) throw new Error('decompressing the result did not give the input back');
      },
    },
    {
      tool: 'compress_tool_output',
      spec: 'compression: compress_tool_output (keeps identifiers such as paths, error codes, URLs, UUIDs)',
      args: { output: BUILD_LOG, max_lines: 20 },
      check: (data) => {
        const text = JSON.stringify(data);
        for (const id of ['src/routes/keys.ts:42:7', 'TS2345', 'https://example.test/errors/TS2345', '7f1c7a52-9a0c-4f69-bb1c-2f6f2a3f9f10']) {
          if (!text.includes(id)) throw new Error(`identifier ${id} was not kept`);
        }
      },
    },
    // general
    { tool: 'adapt_to_context_window', spec: 'general: adapt_to_context_window', args: { text: sampleDocument(), context_window: 4_000, used_tokens: 2_500 } },
    { tool: 'detect_hallucination', spec: 'general: detect_hallucination', args: { original_text: ORIGINAL, compressed_text: COMPRESSED } },
    // Fields not shown in the spec: only the status and result shape are checked.
    { tool: 'get_savings_report', spec: 'analytics: get_savings_report', args: { days: 7 } },
    { tool: 'get_savings_inline', spec: 'analytics: get_savings_inline', args: {} },
    { tool: 'discover_savings', spec: 'analytics: discover_savings', args: { days: 30 } },
    { tool: 'get_compression_insights', spec: 'general: get_compression_insights', args: { days: 30 } },
    { tool: 'calculate_roi', spec: 'analytics: calculate_roi', args: { monthly_input_tokens: 1_000_000, model: 'gpt-4o' } },
    { tool: 'estimate_model_cost', spec: 'analytics: estimate_model_cost', args: { input_tokens: 5_000, output_tokens: 200, models: ['gpt-4o'] } },
    { tool: 'create_project', spec: 'general: create_project (Team or Enterprise)', args: { name: 'Contract project' } },
    { tool: 'project_stats', spec: 'general: project_stats', args: (c) => ({ project_id: c.fx.project_id }) },
    { tool: 'configure_for_client', spec: 'general: configure_for_client', args: { client: 'cursor', toolsets: ['knowledge-base'] } },
    { tool: 'submit_benchmark', spec: 'general: submit_benchmark (the Pro counterpart of gc_submit_benchmark)', args: { model: 'qwen2.5-7b', quantization: 'Q8_0', hardware: 'contract runner', tokens_per_second: 12.5 } },
    { tool: 'recommend_compression', spec: 'general: recommend_compression', args: { text: sampleDocument(), model: 'gpt-4o' } },
    { tool: 'prune_by_relevance', spec: 'general: prune_by_relevance', args: { text: sampleDocument(), query: 'database connection', budget_tokens: 200 } },
    { tool: 'multilevel_encode', spec: 'general: multilevel_encode', args: { text: sampleDocument(), levels: ['outline', 'balanced'] } },
    { tool: 'get_multi_level_skeleton', spec: 'general: get_multi_level_skeleton', args: (c) => ({ file_id: c.fx.file_id }) },
    { tool: 'list_tee_entries', spec: 'general: list_tee_entries', args: { page_size: 5 } },
    { tool: 'tee_store_stats', spec: 'general: tee_store_stats', args: {} },
    { tool: 'filter_cli_output', spec: 'general: filter_cli_output', args: { output: BUILD_LOG, command: 'npx vitest run' } },
    {
      tool: 'get_original_output',
      spec: 'general: get_original_output; Limits: original-output preservation automatic when compression exceeds 80%',
      // The shared fixtures' abstract compression preserved its original (test/contract/fixtures.ts).
      args: (c) => ({ original_id: c.fx.original_id }),
    },
    { tool: 'optimize_for_model', spec: 'general: optimize_for_model', args: { text: sampleDocument(), model: 'gpt-4o' } },
    { tool: 'toon_decode', spec: 'general: toon_decode', args: { toon: 'users[2]{id,name}:\n  1,Ada\n  2,Linus' } },
    { tool: 'toon_encode', spec: 'general: toon_encode', args: { data: { users: [{ id: 1, name: 'Ada' }, { id: 2, name: 'Linus' }] } } },
    { tool: 'verify_compression', spec: 'general: verify_compression', args: { original_text: ORIGINAL, compressed_text: COMPRESSED } },
  ],
} satisfies ContractFile;
