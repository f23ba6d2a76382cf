// Markdown round trip (issue 48, docs/markers.md): a served output with each marker replaced by the
// text its id expands to is the input, byte for byte: whitespace, list bullets, `---` rules and
// closing fences are copied where they stand, never re-added or dropped.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { LEVELS, corpusFiles, expanded, queryFor, sampleOf } from '../../bench/quality/properties.js';
import { startTestServer, DB_KIND, type TestServer } from '../helpers/server.js';
import { newKey } from '../helpers/users.js';

const ID_MARKER = /\[… [^\]\n]*#(\d{12}\.\d+)\]/g;

describe('Markdown round trip in the engine', () => {
  const files = corpusFiles();

  // Plain: every file; with a query (a heading of the file's own): a deterministic sample of 200.
  it(`every installed README and docs/*.md (${files.length} files) rebuilds exactly at every level, plain and with a query`, async () => {
    expect(files.length).toBeGreaterThan(300);
    const bad: string[] = [];
    let markers = 0;
    const queried = new Set(sampleOf(files, 200));
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const query of queried.has(f) ? [undefined, queryFor(text)] : [undefined]) {
        for (const fidelity of LEVELS) {
          const r = await compressText({ text, fidelity, query, markerIds: true });
          markers += r.markers ? r.markers.spans.length / 2 : 0;
          if (expanded(text, r) !== text) bad.push(`${fidelity}${query ? ' (query)' : ''} ${f}`);
        }
      }
    }
    expect(bad.slice(0, 10), `${bad.length} outputs do not rebuild their input`).toEqual([]);
    expect(markers).toBeGreaterThan(1000);
  }, 600_000);

  it('a marker that hides the end of a fenced block stands inside it, and the input closing fence follows', async () => {
    const code = Array.from({ length: 40 }, (_, i) => `const value${i} = compute(${i}); // step ${i} of the long example`).join('\n\n');
    const text = `# Tool\n\nThe tool computes values.\n\n\`\`\`js\n${code}\n\`\`\`\n\n---\n\n## Next\n\nMore prose about the tool follows here, with its settings.\n`;
    const r = await compressText({ text, fidelity: 'balanced', markerIds: true });
    expect(expanded(text, r)).toBe(text);
    // Every fence the output opens it closes (an even number of fence lines).
    expect((r.compressed_text.match(/^```/gm) ?? []).length % 2).toBe(0);
  });
});

describe(`Markdown round trip over REST (${DB_KIND})`, () => {
  let server: TestServer;
  let key = '';
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
    key = await newKey(server, 'pro');
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const path of ['node_modules/postgres/README.md', 'node_modules/piscina/README.md', 'docs/architecture.md']) {
    it(`${path}: /v1/compress at every level, then /v1/expand of every id, gives back the bytes sent`, async () => {
      const text = readFileSync(resolve(process.cwd(), path), 'utf8');
      for (const fidelity of LEVELS) {
        const res = await server.request('POST', '/v1/compress', { key, body: { text, fidelity } });
        expect(res.status, res.text.slice(0, 200)).toBe(200);
        const out: string = res.json.compressed_text;
        const ids = [...out.matchAll(ID_MARKER)].map((m) => m[1]!);
        expect(ids.length, fidelity).toBeGreaterThan(0);
        const ex = await server.request('POST', '/v1/expand', { key, body: { ids } });
        expect(ex.status, ex.text.slice(0, 200)).toBe(200);
        const byId = new Map<string, string>(ex.json.expansions.map((e: { id: string; text: string }) => [e.id, e.text]));
        const rebuilt = out.replace(ID_MARKER, (_m, id: string) => byId.get(id)!);
        expect(rebuilt.length, `${fidelity}: ${rebuilt.length} characters rebuilt against ${text.length}`).toBe(text.length);
        expect(rebuilt === text, fidelity).toBe(true);
      }
    });
  }
});
