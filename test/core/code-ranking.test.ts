// The shared core's algorithms as the code engine uses them, and the code engine's own ranking
// (PageRank + BM25 + blast radius fused by RRF) on a repository small enough to check by hand.
import { describe, expect, it } from 'vitest';
import { bm25Search, terms } from '../../workers/code/bm25.js';
import { adjacency, CODE_PAGERANK } from '../../workers/code/graph.js';
import { compressStructural } from '../../workers/code/structural.js';
import { bm25Idf, bm25Scores, bm25Term } from '../../workers/shared/bm25.js';
import { pagerank } from '../../workers/shared/pagerank.js';
import { reciprocalRankFusion } from '../../workers/shared/rrf.js';
import { QUERY_STOPWORDS, STOPWORDS } from '../../workers/shared/stopwords.js';

describe('shared BM25 as the code search uses it', () => {
  it('scores a document as the sum of its query terms, with the same formula everywhere', () => {
    const docs = [['parse', 'config', 'file'], ['write', 'log'], ['parse', 'parse', 'args']];
    const scores = bm25Scores(docs, ['parse', 'config']);
    const avg = 8 / 3;
    const expected = bm25Term(bm25Idf(3, 2), 1, 3, avg) + bm25Term(bm25Idf(3, 1), 1, 3, avg);
    expect(scores[0]).toBeCloseTo(expected, 12);
    expect(scores[1]).toBe(0);
  });

  it('code search splits identifiers, drops question words only, and ranks like the generic BM25 on the same terms', () => {
    const docs = [['parseConfigFile', 'config'], ['writeLog'], ['parse_args', 'up_down']];
    const hits = bm25Search(docs, 'how do I parse the config?');
    const generic = bm25Scores(docs.map((d) => d.flatMap((w) => terms(w))), terms('how do I parse the config?'));
    expect(hits.map(([d]) => d)).toEqual([0, 2]);
    for (const [d, s] of hits) expect(s).toBeCloseTo(generic[d]!, 12);
    expect(terms('up_down')).toEqual(expect.arrayContaining(['up', 'down'])); // identifiers keep ordinary words
    expect(QUERY_STOPWORDS.has('how')).toBe(true);
    expect(STOPWORDS.has('up')).toBe(true);
  });
});

describe('shared PageRank with the code engine settings', () => {
  it('ranks the most depended-on unit first; ranks sum to 1 with dangling units', () => {
    // 0 -> 2, 1 -> 2, 3 -> 2, 2 -> (nothing): 2 is the shared utility.
    const graph = adjacency(4, [
      { from: 0, to: 2, weight: 1, kind: 'calls' },
      { from: 1, to: 2, weight: 1, kind: 'calls' },
      { from: 3, to: 2, weight: 2, kind: 'calls' },
    ] as never);
    const rank = pagerank(graph, CODE_PAGERANK);
    expect(Array.from(rank).indexOf(Math.max(...rank))).toBe(2);
    expect(rank.reduce((s, r) => s + r, 0)).toBeCloseTo(1, 9);
  });

  it('fuses rankings with weights (RRF k = 60)', () => {
    const fused = reciprocalRankFusion([[0, 1], [1]], 2, 60, [1, 0.5]);
    expect(fused[0]).toBeCloseTo(1 / 61, 12);
    expect(fused[1]).toBeCloseTo(1 / 62 + 0.5 / 61, 12);
  });
});

describe('the code engine ranking', () => {
  const files = [
    { path: 'app/config.py', content: 'from app.util import read_text\n\ndef load_config(path):\n    """Parse the config file."""\n    return parse_ini(read_text(path))\n\ndef parse_ini(text):\n    return dict(line.split("=") for line in text.splitlines())\n' },
    { path: 'app/util.py', content: 'def read_text(path):\n    """Read a whole file."""\n    with open(path) as f:\n        return f.read()\n\ndef slugify(name):\n    return name.lower().replace(" ", "-")\n' },
    { path: 'app/report.py', content: 'from app.util import read_text, slugify\n\ndef render_report(path):\n    return slugify(read_text(path))\n' },
    { path: 'app/cli.py', content: 'from app.config import load_config\nfrom app.report import render_report\n\ndef main(argv):\n    cfg = load_config(argv[1])\n    return render_report(cfg["report"])\n' },
  ];

  it('fuses centrality and the query match by RRF: scores are exactly 1/(60+rank) summed, and the order follows them', () => {
    const r = compressStructural({ files, query: 'parse config file', token_budget: 4000 });
    const byName = new Map(r.ranking.map((u) => [u.name, u]));
    expect(byName.get('read_text')!.signal_ranks.pagerank).toBe(1); // called from two modules
    expect(byName.get('load_config')!.signal_ranks.bm25).toBe(1); // its docstring is the query
    for (const u of r.ranking) {
      const expected = 1 / (60 + u.signal_ranks.pagerank) + (u.signal_ranks.bm25 ? 1 / (60 + u.signal_ranks.bm25) : 0);
      expect(u.score).toBeCloseTo(expected, 6);
    }
    const scores = r.ranking.map((u) => u.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    // Every unit the query matches ranks above every unit it does not.
    const lastHit = r.ranking.findLastIndex((u) => u.signal_ranks.bm25 !== null);
    const firstMiss = r.ranking.findIndex((u) => u.signal_ranks.bm25 === null);
    expect(lastHit).toBeLessThan(firstMiss);
  });

  it('ranks what depends on the focus symbol above unrelated code', () => {
    const r = compressStructural({ files, focus_symbols: ['slugify'], token_budget: 4000 });
    const order = r.ranking.map((u) => u.name);
    expect(order.indexOf('render_report')).toBeLessThan(order.indexOf('load_config'));
    expect(order.indexOf('render_report')).toBeLessThan(order.indexOf('parse_ini'));
  });
});
