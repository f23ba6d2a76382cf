// filter_cli_output over the MCP SDK client, on real output captured from vitest, pytest, cargo test,
// tsc and npm (test/fixtures/cli/): failures with their detail, errors and summaries stay verbatim;
// passing tests, progress and library stack frames are folded into counted markers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../workers/shared/tokens.js';
import { call } from '../helpers/mcp.js';
import { connectAs } from '../helpers/users.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

const fixture = (name: string) => readFileSync(join(process.cwd(), 'test/fixtures/cli', name), 'utf8');

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

/** Every kept line is a line of the input (markers aside), in the input's order. */
function verbatimInOrder(input: string, output: string) {
  const lines = input.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').split('\n');
  let at = 0;
  for (const line of output.split('\n')) {
    if (line.startsWith('[… ') || line === '') continue;
    const found = lines.indexOf(line, at);
    expect(found, `not verbatim or out of order: ${line}`).not.toBe(-1);
    at = found + 1;
  }
}

describe(`filter_cli_output (${DB_KIND})`, () => {
  it('vitest: both failures with their diff and code frame, the summary; 30 passing tests folded', async () => {
    const output = fixture('vitest.txt');
    const r = await call(pro, 'filter_cli_output', { output });
    expect(r.isError).toBe(false);
    const d = r.data;
    expect(d.detected).toBe('vitest');
    expect(d.filtered_output).toContain(' FAIL  a.test.mjs > math > compares objects');
    expect(d.filtered_output).toContain('-     3,');
    expect(d.filtered_output).toContain('+     2,');
    expect(d.filtered_output).toContain(' FAIL  a.test.mjs > math > throws');
    expect(d.filtered_output).toContain("SyntaxError: Expected property name or '}' in JSON at position 1");
    expect(d.filtered_output).toContain('[… 30 passed tests');
    expect(d.filtered_output).not.toContain('adds 17');
    expect(d.summary).toEqual(expect.arrayContaining(['Tests  2 failed | 30 passed (32)', 'Test Files  1 failed (1)']));
    expect(d.folded.passed).toBe(30);
    expect(d.original_tokens).toBe(countTokens(output));
    expect(d.filtered_tokens).toBe(countTokens(d.filtered_output));
    expect(d.filtered_tokens).toBeLessThan(d.original_tokens);
    verbatimInOrder(output, d.filtered_output);
  });

  it('pytest: the failures section, the E lines and the summary; 40 PASSED lines folded', async () => {
    const output = fixture('pytest.txt');
    const d = (await call(pro, 'filter_cli_output', { output, command: 'python3 -m pytest -v' })).data;
    expect(d.detected).toBe('pytest');
    for (const line of ['E       ZeroDivisionError: division by zero', "E       AssertionError: assert 'ABC' == 'ABd'", 'test_calc.py:8: AssertionError', '========================= 2 failed, 40 passed in 1.46s =========================']) {
      expect(d.filtered_output).toContain(line);
    }
    expect(d.filtered_output).not.toContain('test_add_many[17] PASSED');
    expect(d.folded.passed).toBe(40);
    expect(d.savings_percent).toBeGreaterThan(30);
    verbatimInOrder(output, d.filtered_output);
  });

  it('cargo test: panics with the project frames, standard-library frames folded, the failures list and result', async () => {
    const output = fixture('cargo.txt');
    const d = (await call(pro, 'filter_cli_output', { output })).data;
    expect(d.detected).toBe('cargo');
    expect(d.filtered_output).toContain("panicked at src/lib.rs:11:61:");
    expect(d.filtered_output).toContain('index out of bounds: the len is 0 but the index is 3');
    expect(d.filtered_output).toContain('             at ./src/lib.rs:10:27');
    expect(d.filtered_output).not.toContain('/rustc/');
    expect(d.filtered_output).toMatch(/failures:\n {4}tests::broken\n {4}tests::panics/);
    expect(d.filtered_output).toContain('test result: FAILED. 5 passed; 2 failed;');
    expect(d.folded.frames).toBeGreaterThan(10);
    verbatimInOrder(output, d.filtered_output);
  });

  it('tsc and npm: short outputs come back whole, with their errors and summary recognised', async () => {
    const tsc = (await call(pro, 'filter_cli_output', { output: fixture('tsc.txt') })).data;
    expect(tsc.detected).toBe('tsc');
    expect(tsc.error_lines).toBe(3);
    expect(tsc.filtered_output).toBe(fixture('tsc.txt'));
    const npm = (await call(pro, 'filter_cli_output', { output: fixture('npm.txt'), command: 'npm install' })).data;
    expect(npm.detected).toBe('npm');
    expect(npm.summary).toEqual(['added 114 packages in 4s']);
    // Whole but for the leading blank line; the saving is what that line cost.
    expect(npm.filtered_output).toBe(fixture('npm.txt').trimStart());
    expect(npm.tokens_saved).toBe(npm.original_tokens - npm.filtered_tokens);
  });

  it('progress redrawn with carriage returns keeps only the last drawing; unknown output is kept, never grown', async () => {
    const progress = 'Downloading model\rDownloading 10%\rDownloading 55%\rDownloading 100%\nerror: checksum mismatch for model.bin\nDone in 3s\n';
    const d = (await call(pro, 'filter_cli_output', { output: progress })).data;
    expect(d.filtered_output).toContain('error: checksum mismatch for model.bin');
    expect(d.filtered_output).not.toContain('10%');
    const prose = 'Just some text\nwith no runner marks\nat all\n';
    const p = (await call(pro, 'filter_cli_output', { output: prose })).data;
    expect(p.detected).toBe('generic');
    expect(p.filtered_output).toBe(prose);
    expect(p.filtered_tokens).toBe(p.original_tokens);
  });

  it('bad input is a validation error; a Free key gets plan_required', async () => {
    const bad = await call(pro, 'filter_cli_output', { output: 42 });
    expect(bad.isError).toBe(true);
    expect(bad.data.error).toBe('validation_error');
    const gated = await call(free, 'filter_cli_output', { output: 'FAIL x' });
    expect(gated.data.error).toBe('plan_required');
  });
});
