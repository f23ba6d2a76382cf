// Spec: "MCP surface > Tool catalogue > Pro tools (plan:pro)": advisory row (advise_cache_strategy,
// advise_context, audit_prompt_cacheability, check_resource_health, diagnose_cache_miss), analytics
// row (calculate_reward) and general row (assess_cache_compatibility, capture_cache_telemetry,
// explain_compression_decision, get_evidence_stats, get_provider_profile, list_prefix_collisions).
// The catalogue names no result fields for these; the fields below are this service's (docs/prompt-cache-advisory.md).
import { t, type ContractFile } from '../contract.js';

const ORIGINAL = 'The API allows 50 requests per minute per key. Never share your API key with anyone. Keys expire after 90 days.';
const STABLE = Array.from({ length: 120 }, (_, i) => `Rule ${i + 1}: answer in plain English and cite the policy section.`).join('\n');

export default {
  area: 'MCP tools: prompt-cache advisory and provider/context/resource advice',
  tools: [
    {
      tool: 'diagnose_cache_miss',
      spec: 'advisory: diagnose_cache_miss',
      args: { prompt_a: `${STABLE}\nAt 10:00:00`, prompt_b: `${STABLE}\nAt 10:05:00`, model: 'gpt-4o' },
      fields: { identical: t.boolean, first_diff_token: t.integer, first_diff_char_offset: t.integer, shared_prefix_tokens: t.integer, providers: t.array, rules_as_of: t.string },
      check: (d) => {
        if (d.identical || d.providers[0].above_minimum !== true) throw new Error('expected a difference after a cacheable prefix');
      },
    },
    {
      tool: 'audit_prompt_cacheability',
      spec: 'advisory: audit_prompt_cacheability',
      args: { prompt: `Now: 2026-11-26T10:00:00Z\n${STABLE}`, provider: 'anthropic' },
      fields: { findings: t.array, first_volatile_token: t.integer, stable_prefix_tokens: t.integer, recommendations: t.array },
      check: (d) => {
        if (d.findings[0]?.kind !== 'timestamp') throw new Error('the leading timestamp was not found');
      },
    },
    {
      tool: 'assess_cache_compatibility',
      spec: 'general: assess_cache_compatibility',
      args: { model: 'claude-sonnet-4', prompt_tokens: 5000, breakpoints: [4000] },
      fields: { provider: t.enum('anthropic'), compatible: t.boolean, checks: t.array, rules: t.object, cacheable_tokens: t.integer },
    },
    {
      tool: 'advise_cache_strategy',
      spec: 'advisory: advise_cache_strategy',
      args: { model: 'claude-sonnet-4', segments: [{ name: 'q', tokens: 100, changes: 'per_request' }, { name: 'docs', tokens: 4000 }], requests: 100, interval_seconds: 60 },
      fields: { recommended_order: t.array, breakpoints: t.array, expected: t.object, recommendations: t.array },
      check: (d) => {
        if (d.recommended_order[0] !== 'docs' || !(d.expected.savings_usd > 0)) throw new Error('expected the stable segment first and a saving');
      },
    },
    {
      tool: 'capture_cache_telemetry',
      spec: 'general: capture_cache_telemetry',
      args: { model: 'gpt-4o', prefix_hash: 'contract-prefix', continuation_hash: 'contract-turn-1', input_tokens: 2000, cached_tokens: 1024 },
      fields: { telemetry_id: t.uuid, provider: t.enum('openai'), hit: t.boolean, prefix_hash: t.string, occurred_at: t.timestamp },
    },
    {
      tool: 'list_prefix_collisions',
      spec: 'general: list_prefix_collisions',
      args: { min_requests: 1, max_hit_rate: 1 },
      fields: { prefixes_seen: t.integer, collisions: t.array, thresholds: t.object },
    },
    {
      tool: 'get_provider_profile',
      spec: 'general: get_provider_profile',
      args: { model: 'gpt-4o' },
      fields: { kind: t.enum('model'), provider: t.enum('openai'), context_window: t.integer, pricing: t.object, caching: t.object, tokenizer: t.object },
    },
    {
      tool: 'advise_context',
      spec: 'advisory: advise_context',
      args: { context_window: 1000, messages: [{ role: 'system', tokens: 50 }, { role: 'tool', tokens: 600 }, { role: 'user', tokens: 20 }, { role: 'assistant', tokens: 20 }] },
      fields: { level: t.enum('ok', 'notice', 'warning', 'critical'), usage_percent: t.number, actions: t.array, projected_percent: t.number, recommendations: t.array },
      check: (d) => {
        if (d.actions[0]?.action !== 'drop') throw new Error('expected the old tool output to be dropped');
      },
    },
    {
      tool: 'check_resource_health',
      spec: 'advisory: check_resource_health',
      args: {},
      fields: { status: t.enum('healthy', 'degraded', 'unhealthy'), serving: t.boolean, components: t.object, recommendations: t.array, checked_at: t.timestamp },
    },
    {
      tool: 'calculate_reward',
      spec: 'analytics: calculate_reward',
      args: { original_text: ORIGINAL, compressed_text: 'The API allows 50 requests per minute per key. Keys expire after 90 days.' },
      fields: { reward: t.number, savings: t.number, fidelity: t.number, original_tokens: t.integer, compressed_tokens: t.integer, formula: t.string },
    },
    {
      tool: 'get_evidence_stats',
      spec: 'general: get_evidence_stats',
      args: { original_text: ORIGINAL, compressed_text: 'The API allows 50 requests per minute per key. Support works on weekends.' },
      fields: { claims_total: t.integer, supported_share: t.number, unsupported: t.integer, claims: t.array, quality_score: t.number },
      check: (d) => {
        if (d.unsupported !== 1) throw new Error('expected one unsupported claim');
      },
    },
    {
      tool: 'explain_compression_decision',
      spec: 'general: explain_compression_decision',
      args: { text: `# Intro\n${STABLE}`, fidelity: 'abstract' },
      fields: { sections: t.array, units_total: t.integer, units_kept: t.integer, cutoff_priority: t.nullable(t.number), score_weights: t.object },
      check: (d) => {
        if (!d.sections.length || d.sections[0].units.some((u: { scores?: unknown }) => !u.scores)) throw new Error('expected sections with scored units');
      },
    },
  ],
} satisfies ContractFile;
