// Spec: "Endpoints > Compression", with "Resources and their fields > Compression requests and
// responses" and "Issue detection (fully specified)".
import { sampleDocument } from '../../helpers/server.js';
import { t, type ContractFile } from '../contract.js';

const FIDELITIES = ['abstract', 'outline', 'balanced', 'detailed', 'raw'] as const;

export const PYTHON_SAMPLE = `"""Order pricing."""
import math
from decimal import Decimal


class PriceBook:
    """Prices by SKU."""

    def __init__(self, prices):
        self.prices = prices

    def price(self, sku):
        """Unit price of a SKU."""
        return self.prices[sku]


def total(book, lines):
    """Sum of quantity times unit price, rounded up to a cent."""
    amount = sum(Decimal(q) * book.price(sku) for sku, q in lines)
    return math.ceil(amount * 100) / 100


def invoice(book, lines):
    return {"lines": lines, "total": total(book, lines)}
`;

export default {
  area: 'Compression',
  routes: [
    {
      method: 'POST',
      path: '/v1/compress',
      spec: 'CompressRequest -> CompressResponse (200) | Pro/Team/Enterprise go through a semantic dedup cache first: on hit the stored response is returned verbatim with X-Semantic-Cache: hit',
      // The shared fixtures sent this very request once already (test/contract/fixtures.ts), so the
      // owner (Enterprise) gets the stored response.
      request: (c) => ({ body: c.fx.compress_body }),
      status: 200,
      headers: { 'x-semantic-cache': 'hit' },
      note: 'CompressResponse fields are not shown by the spec.',
    },
    {
      method: 'POST',
      path: '/v1/compress-code',
      spec: 'Compress-code response: skeleton with signatures, docstrings and per-function/class importance scores (ranked by PageRank on the dependency graph); imports and dependency graph are extracted',
      request: { body: { code: PYTHON_SAMPLE } },
      status: 200,
      // The spec's nouns: the skeleton (text) and the extracted imports (a list); "importance scores" and
      // "dependency graph" are named without a field name.
      fields: { skeleton: t.string, imports: t.array },
    },
    {
      method: 'POST',
      path: '/v1/compress-code/structural',
      spec: 'StructuralCompressRequest -> StructuralCompressResponse; uses blast-radius analysis, BM25 and reciprocal rank fusion',
      request: {
        body: {
          files: [
            { path: 'pricing.py', content: PYTHON_SAMPLE },
            { path: 'cli.py', content: 'from pricing import PriceBook, invoice\n\n\ndef main():\n    book = PriceBook({"a": 1})\n    print(invoice(book, [("a", 2)]))\n' },
          ],
          query: 'invoice total',
        },
      },
      status: 200,
      note: 'StructuralCompressResponse fields are not shown by the spec.',
    },
    {
      method: 'POST',
      path: '/v1/batch-compress',
      spec: 'BatchResponse: results list, one per document; a failed document carries an error field; plus aggregate summary statistics. A failed document is reported in results with error and the batch still returns 200',
      request: { body: { documents: [{ text: sampleDocument(), fidelity: 'outline' }, { text: 'Short note on caching.', fidelity: 'loose' }, { text: sampleDocument(), query: 'rate limits' }] } },
      status: 200,
      fields: {
        results: t.array,
        // The second document has an invalid fidelity: it fails, the batch does not.
        'results[1].error': t.string,
        summary: t.object,
      },
      check: (res) => {
        if (res.json.results.length !== 3) throw new Error(`results should have one element per document (3), has ${res.json.results.length}`);
        for (const i of [0, 2]) if (res.json.results[i].error != null) throw new Error(`document ${i} should succeed: ${res.json.results[i].error}`);
      },
    },
    {
      method: 'POST',
      path: '/v1/recommend',
      spec: 'RecommendRequest (document; optional model; optional context_window) -> RecommendResponse: recommended fidelity level (one of the fidelity values)',
      request: { body: { document: sampleDocument(), model: 'gpt-4o' } },
      status: 200,
      fields: { recommended_fidelity: t.enum(...FIDELITIES) },
    },
    {
      method: 'POST',
      path: '/v1/detect-issues',
      spec: 'Issue detection (fully specified) response fields: issues_found number; issues array; issues[].type hallucination or blind_spot; issues[].severity low, medium or high; issues[].description string; issues[].location string or null; quality_score number 0.0 to 1.0',
      request: {
        body: {
          original_text: 'The API allows 50 requests per minute per key. Never share your API key with anyone. Keys expire after 90 days.',
          compressed_text: 'The API allows 500 requests per minute per key. Keys expire after 90 days.',
        },
      },
      status: 200,
      fields: {
        issues_found: t.number,
        issues: t.array,
        'issues[].type': t.enum('hallucination', 'blind_spot'),
        'issues[].severity': t.enum('low', 'medium', 'high'),
        'issues[].description': t.string,
        'issues[].location': t.nullable(t.string),
        quality_score: t.number,
      },
      check: (res) => {
        const { quality_score: q, issues_found: n, issues } = res.json;
        if (q < 0 || q > 1) throw new Error(`quality_score ${q} outside 0.0-1.0`);
        if (n !== issues.length) throw new Error(`issues_found ${n} should count issues (${issues.length})`);
      },
    },
  ],
} satisfies ContractFile;
