// search_code's dense half: a question in other words than the code's still finds the definition,
// an incremental update embeds only what changed, and lexical hits keep leading the fusion.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Bm25Postings, bm25Search } from '../../workers/code/bm25.js';
import { analyzeFile } from '../../workers/code/index.js';
import { RepoIndex } from '../../workers/codeIntel/repoIndex.js';
import { UnitVectors } from '../../workers/codeIntel/semantic.js';

const analyse = (path: string, content: string) => analyzeFile({ path, content });

const FILES: Record<string, string> = {
  'storage/files.py': 'def remove_file(path):\n    """Unlink it from the disk."""\n    import os\n    os.unlink(path)\n\n\ndef copy_tree(src, dst):\n    """Copy every entry below src to dst."""\n    pass\n',
  'net/http.py': 'def fetch_page(url):\n    """Download the web page at url and return its body."""\n    return None\n\n\ndef parse_header(line):\n    """Split a header line at the colon."""\n    return line.split(":", 1)\n',
  'maths/stats.py': 'def mean(values):\n    """Arithmetic average of the values."""\n    return sum(values) / len(values)\n',
};

async function search(idx: RepoIndex, vectors: UnitVectors, query: string, limit = 5) {
  const aligned = await vectors.align(idx.searchTexts());
  return idx.search(query, limit, await UnitVectors.nearest(query, aligned));
}

describe('search_code: BM25 fused with embeddings', () => {
  it('finds a definition from words it does not contain', async () => {
    const idx = new RepoIndex();
    idx.apply(Object.entries(FILES).map(([p, c]) => analyse(p, c)), []);
    const vectors = new UnitVectors();
    // No query word occurs in remove_file's name, docstring or path: BM25 alone finds nothing.
    expect(idx.search('delete document', 5).results).toEqual([]);
    const r = await search(idx, vectors, 'delete document');
    expect(r.mode).toBe('hybrid');
    expect(r.results[0]).toMatchObject({ qualified: 'remove_file', bm25: null });
    expect(r.results[0]!.similarity).toBeGreaterThan(0);
    // A lexical match still comes first.
    const lexical = await search(idx, vectors, 'parse header');
    expect(lexical.results[0]).toMatchObject({ qualified: 'parse_header' });
    expect(lexical.results[0]!.bm25).toBeGreaterThan(0);
  });

  it('re-embeds only the definitions an update changed', async () => {
    const idx = new RepoIndex();
    idx.apply(Object.entries(FILES).map(([p, c]) => analyse(p, c)), []);
    const vectors = new UnitVectors();
    const before = await vectors.align(idx.searchTexts());
    idx.apply([analyse('maths/stats.py', `${FILES['maths/stats.py']}\n\ndef median(values):\n    """Middle value once sorted."""\n    return sorted(values)[len(values) // 2]\n`)], []);
    const texts = idx.searchTexts();
    const after = await vectors.align(texts);
    expect(after).toHaveLength(before.length + 1);
    // Unchanged definitions keep the very same vector objects (not embedded again); only median is new.
    const fresh = after.filter((v) => !before.includes(v));
    expect(fresh).toHaveLength(1);
    expect(texts[after.indexOf(fresh[0]!)]).toMatch(/^median\./);
    const r = await search(idx, vectors, 'middle of sorted numbers');
    expect(r.results.map((x) => x.qualified)).toContain('median');
  });

  it('a query of unknown words gives lexical results only, not noise', async () => {
    const idx = new RepoIndex();
    idx.apply(Object.entries(FILES).map(([p, c]) => analyse(p, c)), []);
    const r = await search(idx, new UnitVectors(), 'zqxv wqrtp');
    expect(r.results).toEqual([]);
  });

  it('BM25 by postings gives exactly the scores and order of the linear pass', () => {
    const word = fc.constantFrom('parseHeader', 'parse_url', 'HTTPClient', 'read', 'write', 'readFile', 'the', 'x', 'save_value', 'Store', 'value');
    fc.assert(
      fc.property(fc.array(fc.array(word, { maxLength: 12 }), { minLength: 1, maxLength: 40 }), fc.array(word, { minLength: 1, maxLength: 4 }), (docs, q) => {
        const query = q.join(' ');
        expect(new Bm25Postings(docs).search(query)).toEqual(bm25Search(docs, query));
      }),
      { numRuns: 300 },
    );
  });
});
