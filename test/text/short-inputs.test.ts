// Short prose, markers and tables (issue 23's fidelity defects): small inputs keep their content,
// levels stay apart, and no elision marker costs more than what it hides.
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
import { MARKER, nonVerbatimFragments, realDoc } from './helpers.js';

const LEVELS: Fidelity[] = ['abstract', 'outline', 'balanced', 'detailed'];

const HEARTBEAT =
  'The agent sends a heartbeat every 30 seconds to the coordinator on port 7400. If three heartbeats are missed, the node is marked unhealthy. State is stored in RocksDB under /var/lib/agent with a 7-day retention.';
const OVERVIEW =
  'Overview. Keel is a distributed job scheduler written in Go that runs workloads on up to 5,000 nodes. Jobs are declared in TOML files and submitted through the keelctl command or the REST API on port 8443. Each job gets a lease of 90 seconds that the worker renews; expired leases are requeued by the leader, which is elected through Raft.';
const TABLE =
  '# Limits\n\n| limit | value |\n|---|---|\n| max_connections | 500 |\n| timeout_ms | 30000 |\n| retries | 5 |\n\nThe limits above apply per tenant and can be raised on request by support. Values are enforced by the gateway.';

/** Paragraphs of 50–200 tokens from installed packages' READMEs: short real prose nobody here wrote. */
function shortParagraphs(): string[] {
  const out: string[] = [];
  for (const path of ['node_modules/postgres/README.md', 'node_modules/piscina/README.md', 'node_modules/ioredis/README.md']) {
    for (const p of realDoc(path).split(/\n{2,}/)) {
      const t = countTokens(p);
      if (t >= 50 && t <= 200 && !p.startsWith('```') && !p.startsWith('|') && !p.startsWith('<')) out.push(p);
    }
  }
  return out;
}

const markers = (s: string) => s.match(MARKER) ?? [];
const hiddenTokens = (marker: string) => Number(/(\d+) tokens?\]$/.exec(marker)![1]);
const keptText = (s: string) => s.replace(MARKER, '').trim();

describe('short inputs keep their content', () => {
  it('a 50-token paragraph: balanced and detailed keep it whole; abstract and outline keep its lead sentence', async () => {
    for (const fidelity of ['balanced', 'detailed'] as const) {
      expect((await compressText({ text: HEARTBEAT, fidelity })).compressed_text).toBe(HEARTBEAT);
    }
    for (const fidelity of ['abstract', 'outline'] as const) {
      const r = await compressText({ text: HEARTBEAT, fidelity });
      expect(r.compressed_text).toContain('The agent sends a heartbeat every 30 seconds to the coordinator on port 7400.');
    }
  });

  it('an 80-token overview is never its first word and a marker; detailed keeps more than balanced', async () => {
    const byLevel: Record<string, number> = {};
    for (const fidelity of LEVELS) {
      const r = await compressText({ text: OVERVIEW, fidelity });
      byLevel[fidelity] = r.compressed_tokens;
      expect(r.compressed_text).toContain('5,000 nodes');
      expect(countTokens(keptText(r.compressed_text))).toBeGreaterThan(markers(r.compressed_text).reduce((s, m) => s + countTokens(m), 0));
    }
    // Detailed keeps more than balanced, unless balanced already keeps the whole paragraph.
    if (byLevel.balanced! < countTokens(OVERVIEW)) expect(byLevel.detailed).toBeGreaterThan(byLevel.balanced!);
    else expect(byLevel.detailed).toBe(byLevel.balanced);
    expect(byLevel.balanced).toBeGreaterThan(byLevel.outline!);
  });

  it('real paragraphs of 50–200 tokens: at every level the kept text outweighs its markers, levels never shrink, output is verbatim', async () => {
    const paragraphs = shortParagraphs();
    expect(paragraphs.length).toBeGreaterThan(30);
    for (const text of paragraphs) {
      let previous = 0;
      for (const fidelity of LEVELS) {
        const r = await compressText({ text, fidelity });
        const kept = keptText(r.compressed_text);
        const markerTokens = markers(r.compressed_text).reduce((s, m) => s + countTokens(m), 0);
        expect(countTokens(kept), `${fidelity}: ${r.compressed_text}`).toBeGreaterThanOrEqual(markerTokens);
        expect(r.compressed_tokens, `${fidelity} of: ${text.slice(0, 60)}`).toBeGreaterThanOrEqual(previous);
        expect(r.compressed_tokens).toBeLessThanOrEqual(r.original_tokens);
        expect(nonVerbatimFragments(text, r.compressed_text)).toEqual([]);
        previous = r.compressed_tokens;
      }
    }
  });
});

describe('elision markers', () => {
  it('no marker hides fewer tokens than it costs, on short and long documents at every level', async () => {
    const texts = [...shortParagraphs(), realDoc('node_modules/postgres/README.md'), realDoc('node_modules/piscina/README.md')];
    let seen = 0;
    for (const text of texts) {
      for (const fidelity of LEVELS) {
        for (const m of markers((await compressText({ text, fidelity })).compressed_text)) {
          seen++;
          expect(hiddenTokens(m), m).toBeGreaterThan(countTokens(m));
        }
      }
    }
    expect(seen).toBeGreaterThan(100);
  });
});

describe('tables', () => {
  it('a kept table header comes with at least its first row', async () => {
    for (const fidelity of LEVELS) {
      const out = (await compressText({ text: TABLE, fidelity })).compressed_text;
      expect(out).toContain('| limit | value |');
      expect(out).toContain('| max_connections | 500 |');
    }
    const doc = realDoc('node_modules/postgres/README.md');
    for (const fidelity of LEVELS) {
      const lines = (await compressText({ text: doc, fidelity })).compressed_text.split('\n');
      lines.forEach((line, i) => {
        if (/^\|?\s*:?-{3,}/.test(line)) expect(lines[i + 1] ?? '', `header without rows at ${fidelity}`).toMatch(/^\|/);
      });
    }
  });
});
