// Spec: "Tool catalogue > Pro tools > platform: code analysis (wrap a structural code-analysis tool)",
// with search_code (search row) and detect_dead_code, export_graph_json, generate_structural_summary
// (general row), export_graph_graphml and visualize_graph_html (general row). The catalogue names result fields only for
// gc_blast_radius and gc_scan (findings with rule_id, severity, message, fingerprint, matches, files,
// evidence, status). These tools answer from
// the project's repository index, so they use the owner's project-bound key; setup indexes two files.
import { t, toolErrorOf, type ContractFile } from '../contract.js';
import { PYTHON_SAMPLE } from './compress.js';

const FILES = [
  { path: 'pricing.py', content: PYTHON_SAMPLE },
  // gc_scan has something to find: a pickle load (deserialization pack).
  { path: 'cache.py', content: 'import pickle\n\n\ndef restore(blob):\n    return pickle.loads(blob)\n' },
  { path: 'cli.py', content: 'from pricing import PriceBook, invoice\n\n\ndef main():\n    book = PriceBook({"a": 1})\n    return invoice(book, [("a", 2)])\n' },
];

export default {
  area: 'MCP tools: code analysis',
  setup: async (c) => {
    await c.tool('gc_orient', { files: FILES }, 'project');
  },
  tools: [
    { tool: 'gc_orient', spec: 'platform: code analysis: gc_orient', args: { files: [{ path: 'util.py', content: 'def helper():\n    return 1\n' }] }, key: 'project' },
    { tool: 'gc_defs', spec: 'platform: code analysis: gc_defs', args: { symbol: 'total' }, key: 'project' },
    { tool: 'gc_refs', spec: 'platform: code analysis: gc_refs', args: { symbol: 'total' }, key: 'project' },
    { tool: 'gc_callers', spec: 'platform: code analysis: gc_callers', args: { symbol: 'total' }, key: 'project' },
    { tool: 'gc_source', spec: 'platform: code analysis: gc_source', args: { symbol: 'PriceBook.price' }, key: 'project' },
    { tool: 'gc_impact', spec: 'platform: code analysis: gc_impact', args: { symbols: ['total'] }, key: 'project' },
    {
      tool: 'gc_blast_radius',
      spec: 'gc_blast_radius (requires focus_symbol; omission returns BlastRadiusInputError; result may set result_incomplete or not_found)',
      // A symbol that exists and one that does not: the result is incomplete and names what was not found.
      args: { focus_symbol: ['total', 'no_such_symbol'] },
      key: 'project',
      fields: { result_incomplete: t.boolean, not_found: t.array },
      check: async (_data, c) => {
        const missing = await c.mcp('project').callTool({ name: 'gc_blast_radius', arguments: {} });
        const error = toolErrorOf(missing);
        if (!missing.isError || error !== 'BlastRadiusInputError') throw new Error(`omitting focus_symbol should return BlastRadiusInputError, got ${JSON.stringify(missing.content)}`);
      },
    },
    { tool: 'gc_repo_map', spec: 'platform: code analysis: gc_repo_map', args: { query: 'invoice total', token_budget: 256 }, key: 'project' },
    {
      tool: 'gc_scan',
      spec: 'gc_scan (rule packs, findings with rule_id, severity, message, fingerprint, matches, files, evidence, status)',
      args: {},
      key: 'project',
      fields: {
        findings: t.array,
        'findings[].rule_id': t.string,
        'findings[].severity': t.string,
        'findings[].message': t.string,
        'findings[].fingerprint': t.string,
        'findings[].matches': t.array,
        'findings[].files': t.array,
        'findings[].evidence': t.string,
        'findings[].status': t.string,
      },
      check: async (data) => {
        const findings = (data as { findings: Array<{ rule_id: string; files: string[] }> }).findings;
        if (!findings.some((f) => f.rule_id === 'deserialization.pickle' && f.files.includes('cache.py'))) throw new Error(`gc_scan should report pickle.loads in cache.py, got ${JSON.stringify(findings)}`);
      },
    },
    { tool: 'gc_context_render', spec: 'platform: code analysis: gc_context_render', args: { symbols: ['total'], files: ['cli.py'], token_budget: 512 }, key: 'project' },
    { tool: 'gc_agent_capsule', spec: 'platform: code analysis: gc_agent_capsule', args: { token_budget: 400 }, key: 'project' },
    { tool: 'gc_edit_plan', spec: 'platform: code analysis: gc_edit_plan', args: { request: 'apply a discount to the invoice total' }, key: 'project' },
    { tool: 'export_graph_graphml', spec: 'general: export_graph_graphml', key: 'project' },
    { tool: 'visualize_graph_html', spec: 'general: visualize_graph_html', key: 'project' },
    { tool: 'search_code', spec: 'search: search_code', args: { query: 'invoice total' }, key: 'project' },
    { tool: 'detect_dead_code', spec: 'general: detect_dead_code', key: 'project' },
    { tool: 'export_graph_json', spec: 'general: export_graph_json', key: 'project' },
    { tool: 'generate_structural_summary', spec: 'general: generate_structural_summary', key: 'project' },
  ],
} satisfies ContractFile;
