// recommend_compression over the MCP SDK client: real content of each kind routed to the tool that
// fits it, small inputs left alone, and the recommended call itself works.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realDoc } from '../text/helpers.js';
import { call } from '../helpers/mcp.js';
import { junitReport } from '../helpers/junit.js';
import { connectAs } from '../helpers/users.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let pro: Client;
let free: Client;
beforeAll(async () => {
  server = await startTestServer();
  pro = await connectAs(server, 'pro');
  free = await connectAs(server, 'free');
});
afterAll(async () => {
  for (const c of [pro, free]) await c?.close();
  await server?.close();
});

const root = process.cwd();

describe(`recommend_compression (${DB_KIND})`, () => {
  it('routes each kind of real content to the tool that fits it', async () => {
    const readme = realDoc('node_modules/piscina/README.md');
    const prose = (await call(pro, 'recommend_compression', { text: readme, model: 'gpt-4o' })).data;
    expect(prose).toMatchObject({ kind: 'prose', should_compress: true, recommended_tool: 'optimize_for_model' });
    const asked = (await call(pro, 'recommend_compression', { text: readme, query: 'maxQueue' })).data;
    expect(asked.recommended_tool).toBe('prune_by_relevance');

    const code = (await call(pro, 'recommend_compression', { text: readFileSync(join(root, 'src/domain/call.ts'), 'utf8') })).data;
    expect(code).toMatchObject({ kind: 'code', language: 'typescript', recommended_tool: 'compress_codebase' });
    for (const [file, language] of [['sample.py', 'python'], ['sample.go', 'go'], ['Sample.java', 'java'], ['sample.rs', 'rust']]) {
      const r = (await call(pro, 'recommend_compression', { text: readFileSync(join(root, 'test/code/fixtures', file!), 'utf8') })).data;
      expect(r, file).toMatchObject({ kind: 'code', language });
    }

    const cli = (await call(pro, 'recommend_compression', { text: readFileSync(join(root, 'test/fixtures/cli/pytest.txt'), 'utf8') })).data;
    expect(cli).toMatchObject({ kind: 'cli_output', cli_tool: 'pytest', recommended_tool: 'filter_cli_output' });

    const rows = JSON.stringify(Array.from({ length: 60 }, (_, i) => ({ id: i, name: `user${i}`, email: `user${i}@example.test`, active: i % 2 === 0 })));
    const json = (await call(pro, 'recommend_compression', { text: rows })).data;
    expect(json).toMatchObject({ kind: 'json', recommended_tool: 'toon_encode' });
    // The recommended call works as given, with the content in place of the placeholder.
    const toon = await call(pro, 'toon_encode', { json: rows });
    expect(toon.data.toon_tokens).toBeLessThan(toon.data.json_tokens);

    // Markup and structured text go to the text engine, which reads each as what it is. Until
    // 2026-11-27 a page and an XML report were classified as TSX and sent to compress_codebase.
    const page = (await call(pro, 'recommend_compression', { text: readFileSync(join(root, 'node_modules/uWebSockets.js/docs/generated/interfaces/HttpResponse.html'), 'utf8') })).data;
    expect(page).toMatchObject({ kind: 'html', recommended_tool: 'optimize_for_model' });
    const report = (await call(pro, 'recommend_compression', { text: junitReport() })).data;
    expect(report).toMatchObject({ kind: 'xml', recommended_tool: 'optimize_for_model' });
    const workflow = (await call(pro, 'recommend_compression', { text: readFileSync(join(root, 'node_modules/@fastify/ajv-compiler/node_modules/fast-uri/.github/workflows/ci.yml'), 'utf8') })).data;
    expect(workflow).toMatchObject({ kind: 'yaml' });
    const issues = JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ id: i, title: `Issue ${i}`, ...(i % 2 ? { labels: ['bug'] } : { assignee: `user${i}` }) })), null, 2);
    const mixed = (await call(pro, 'recommend_compression', { text: issues })).data;
    expect(mixed).toMatchObject({ kind: 'json', recommended_tool: 'optimize_for_model' });
    expect(mixed.reasons[0]).toMatch(/whole records/);
  });

  it('small inputs are left alone; a full context window makes even a small one worth it', async () => {
    const small = (await call(pro, 'recommend_compression', { text: 'A short note about the deploy on Tuesday, nothing more to it.' })).data;
    expect(small).toMatchObject({ should_compress: false, recommended_tool: null, fidelity: 'raw' });
    const crowded = (await call(pro, 'recommend_compression', { text: realDoc('node_modules/piscina/README.md').slice(0, 1000), context_window: 2000, used_tokens: 1500 })).data;
    expect(crowded.should_compress).toBe(true);
  });

  it('bad input is a validation error; Free gets plan_required', async () => {
    expect((await call(pro, 'recommend_compression', { text: '' })).data.error).toBe('validation_error');
    expect((await call(free, 'recommend_compression', { text: 'hello' })).data.error).toBe('plan_required');
  });
});
