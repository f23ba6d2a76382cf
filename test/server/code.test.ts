import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savingsPercent } from '../../workers/shared/stats.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { junitReport } from '../helpers/junit.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const PY = `import os
from typing import List


def helper(x: int) -> int:
    """Double a number."""
    y = x * 2
    return y


class Store:
    """Keeps items."""

    def __init__(self) -> None:
        self.items: List[int] = []

    def add(self, x: int) -> None:
        """Add one item after doubling it."""
        self.items.append(helper(x))
        for i in range(10):
            print(i, os.getcwd())
`;

describe(`code compression routes (${DB_KIND})`, () => {
  it('returns a skeleton, graph and importance for one file, detecting the language', async () => {
    const res = await server.request('POST', '/v1/compress-code', { body: { code: PY } });
    expect(res.status).toBe(200);
    const body = res.json;
    expect(body.language).toBe('python');
    expect(body.parser).toBe('tree-sitter');
    expect(body.skeleton).toContain('def helper(x: int) -> int:');
    // Served skeletons mark each elided body with its size and id (docs/markers.md). Docs are budgeted
    // like bodies (issue 48): this 106-token file's signatures alone pass balanced's 20%, so its
    // docstrings are not shown and the response says why.
    expect(body.skeleton).toMatch(/def add\(self, x: int\) -> None:\n\s+\.\.\.  # \d+ tokens #\d{12}\.1/);
    expect(body.budget_note).toMatch(/never cut/);
    expect(body.skeleton).not.toContain('print(i, os.getcwd())');
    expect(body.compressed_tokens).toBeLessThan(body.original_tokens);
    expect(body.importance[0].name).toBe('helper');
    expect(body.dependency_graph.edges.length).toBeGreaterThan(0);
  });

  it('answers 422 for binary input and accepts an empty file', async () => {
    const binary = await server.request('POST', '/v1/compress-code', { body: { code: 'abc\u0000\u0001\u0002def' } });
    expect(binary.status).toBe(422);
    expect(binary.json.detail[0].loc).toEqual(['body', 'code']);
    const empty = await server.request('POST', '/v1/compress-code', { body: { code: '', language: 'python' } });
    expect(empty.status).toBe(200);
    expect(empty.json.skeleton).toBe('');
  });

  it('ranks across files with a query and follows blast radius from a focus symbol', async () => {
    const files = [
      { path: 'pkg/util.py', content: 'def parse_config(path):\n    """Read the config file."""\n    return open(path).read()\n' },
      { path: 'pkg/app.py', content: 'from pkg.util import parse_config\n\n\ndef main():\n    cfg = parse_config("a.toml")\n    return cfg\n' },
      { path: 'pkg/other.py', content: 'def unrelated():\n    return 42\n' },
    ];
    const res = await server.request('POST', '/v1/compress-code/structural', {
      body: { files, query: 'config parsing', focus_symbols: ['parse_config', 'no_such_symbol'], token_budget: 500 },
    });
    expect(res.status).toBe(200);
    const body = res.json;
    expect(body.files).toBe(3);
    expect(body.blast_radius.dependents.map((d: any) => d.name)).toContain('main');
    expect(body.not_found).toEqual(['no_such_symbol']);
    expect(body.result_incomplete).toBe(true);
    expect(body.ranking[0].name).toBe('parse_config');
    expect(body.compressed_tokens).toBeLessThanOrEqual(500);
  });

  it('reports a blast-radius request without focus symbols as BlastRadiusInputError (422)', async () => {
    const res = await server.request('POST', '/v1/compress-code/structural', {
      body: { files: [{ path: 'a.py', content: 'def f():\n    pass\n' }], blast_radius: true },
    });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].type).toBe('BlastRadiusInputError');
  });
});

describe(`code results are honest about what they compressed (${DB_KIND})`, () => {
  const COBOL = `       IDENTIFICATION DIVISION.
       PROGRAM-ID. HELLO.
       PROCEDURE DIVISION.
           DISPLAY 'HELLO, WORLD'.
           STOP RUN.`;

  it('a language it cannot parse is refused with 400 naming the supported ones', async () => {
    const res = await server.request('POST', '/v1/compress-code', { body: { code: COBOL, language: 'cobol' } });
    expect(res.status).toBe(400);
    expect(res.json.detail).toContain("Unsupported language 'cobol'");
    for (const lang of ['python', 'typescript', 'go', 'rust', 'java', 'cpp']) expect(res.json.detail).toContain(lang);
  });

  it('content that is no detectable code goes through the text compressor and says so', async () => {
    const prose = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of the release notes explains why the pool limits backend processes.`).join('\n\n');
    for (const code of [COBOL, prose]) {
      const res = await server.request('POST', '/v1/compress-code', { body: { code, fidelity: 'outline' } });
      expect(res.status).toBe(200);
      expect(res.json.parser).toBe('text');
      expect(res.json.skeleton.trim().length).toBeGreaterThan(0);
      expect(res.json.compressed_tokens).toBeGreaterThan(0);
      expect(res.json.compressed_tokens).toBeLessThanOrEqual(res.json.original_tokens);
    }
  });

  it('an HTML page or an XML document is markup, not TSX: the text engine reads it', async () => {
    // Until 2026-11-27 a page was detected as TSX, parsed, and came back as an empty skeleton.
    const page = readFileSync(join(process.cwd(), 'node_modules/uWebSockets.js/docs/generated/interfaces/HttpResponse.html'), 'utf8');
    const res = await server.request('POST', '/v1/compress-code', { body: { code: page, fidelity: 'balanced' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ parser: 'text', language: 'unknown' });
    expect(res.json.skeleton).toContain('# Interface HttpResponse');
    const report = await server.request('POST', '/v1/compress-code', { body: { code: junitReport(), fidelity: 'balanced' } });
    expect(report.json).toMatchObject({ parser: 'text', language: 'unknown' });
    expect(report.json.skeleton.match(/<failure /g)).toHaveLength(6);
  });
});

describe(`structural output (${DB_KIND})`, () => {
  it('never outgrows its input: a budget that covers two small files returns them whole, imports included', async () => {
    const files = [
      { path: 'a.py', content: 'from b import helper\n\ndef main():\n    return helper(2)\n' },
      { path: 'b.py', content: 'def helper(x):\n    return x * 2\n' },
    ];
    const res = await server.request('POST', '/v1/compress-code/structural', { body: { files } });
    expect(res.status).toBe(200);
    expect(res.json.compressed_tokens).toBeLessThanOrEqual(res.json.original_tokens);
    expect(res.json.savings_percent).toBe(savingsPercent(res.json.original_tokens, res.json.compressed_tokens));
    expect(res.json.output).toContain('from b import helper');
    expect(res.json.file_imports['a.py'] ?? res.json.file_imports).toBeTruthy();
  });

  it('keeps each rendered file’s import lines when the budget forces a skeleton', async () => {
    const body = (n: string) => Array.from({ length: 30 }, (_, i) => `    v${i} = ${n}(${i}) + ${i}  # step ${i}`).join('\n');
    const files = [
      { path: 'app/main.py', content: `import os\nfrom app.util import helper, other\n\ndef main():\n    """Entry."""\n${body('helper')}\n    return v1\n` },
      { path: 'app/util.py', content: `import re\n\ndef helper(x):\n    """Helps."""\n${body('int')}\n    return x\n\ndef other(y):\n${body('str')}\n    return y\n` },
    ];
    const res = await server.request('POST', '/v1/compress-code/structural', { body: { files, token_budget: 120 } });
    expect(res.status).toBe(200);
    expect(res.json.compressed_tokens).toBeLessThan(res.json.original_tokens);
    expect(res.json.compressed_tokens).toBeLessThanOrEqual(120);
    for (const file of ['app/main.py', 'app/util.py']) {
      if (!res.json.output.includes(`--- ${file} ---`)) continue;
      const section = res.json.output.split(`--- ${file} ---`)[1]!.split('\n--- ')[0]!;
      expect(section).toContain(file === 'app/main.py' ? 'from app.util import helper, other' : 'import re');
    }
    expect(res.json.output).toContain('--- app/main.py ---');
  });
  it('one tiny function comes back as sent at every fidelity: raw is the source, no path line makes it grow', async () => {
    const fn = 'def add(a, b):\n    return a + b\n';
    for (const fidelity of ['abstract', 'outline', 'balanced', 'detailed', 'raw']) {
      const res = await server.request('POST', '/v1/compress-code/structural', { body: { files: [{ path: 'src/util/math.py', content: fn }], fidelity } });
      expect(res.status).toBe(200);
      expect(res.json.output, fidelity).toBe(fn);
      expect(res.json.compressed_tokens).toBe(res.json.original_tokens);
    }
  });
});
