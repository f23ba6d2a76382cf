// Splitting one documentation page into titled chunks with GitHub anchors (workers/docs/pages.ts).
import { describe, expect, it } from 'vitest';
import { githubSlug, isNoise, sections, splitPage } from '../../workers/docs/pages.js';

const PAGE = [
  '# Hooks',
  '',
  'Hooks run at points of the request lifecycle.',
  '',
  '## Request/Reply Hooks',
  '',
  '### onRequest',
  '',
  'Runs first, before the body is parsed. It is the place for authentication checks on every request.',
  '',
  '```js',
  '# not a heading: inside a fence',
  "fastify.addHook('onRequest', async (request, reply) => {})",
  '```',
  '',
  '### ```await sql.cursor([rows = 1], [fn])```',
  '',
  'Inline triple backticks in a heading do not open a fence, so the next heading is still found.',
  '',
  '### onRequest',
  '',
  'A second section of the same name gets the suffixed anchor, as on GitHub pages.',
].join('\n');

describe('documentation pages', () => {
  it('anchors headings as GitHub does', () => {
    expect(githubSlug('Request/Reply Hooks')).toBe('requestreply-hooks');
    expect(githubSlug('pino.multistream(streamsArray, opts) => MultiStreamRes')).toBe('pinomultistreamstreamsarray-opts--multistreamres');
    expect(githubSlug('.header(key, value)')).toBe('headerkey-value');
  });

  it('cuts sections by Markdown headings only, skipping fenced code', () => {
    const secs = sections(PAGE);
    expect(secs.map((s) => s.anchor)).toEqual(['hooks', 'requestreply-hooks', 'onrequest', 'await-sqlcursorrows--1-fn', 'onrequest-1']);
    expect(secs.find((s) => s.anchor === 'onrequest')!.path).toEqual(['Hooks', 'Request/Reply Hooks', 'onRequest']);
  });

  it('gives each chunk its title path and section anchor; a heading without body joins the next section', async () => {
    const page = await splitPage(PAGE, 'docs/Reference/Hooks.md', 'Fastify');
    expect(page.title).toBe('Hooks');
    expect(page.chunks.map((c) => [c.title, c.anchor])).toEqual([
      ['Hooks', null],
      ['Hooks › Request/Reply Hooks › onRequest', 'onrequest'],
      ['Hooks › Request/Reply Hooks › await sql.cursor([rows = 1], [fn])', 'await-sqlcursorrows--1-fn'],
      ['Hooks › Request/Reply Hooks › onRequest', 'onrequest-1'],
    ]);
    // The empty "Request/Reply Hooks" heading is carried into the onRequest chunk.
    expect(page.chunks[1]!.text.startsWith('## Request/Reply Hooks')).toBe(true);
    expect(page.chunks[1]!.text).toContain('# not a heading: inside a fence');
  });

  it('a README without a top-level heading takes the framework name', async () => {
    const page = await splitPage('Some introduction paragraph with enough words to be kept as a chunk here.\n\n## Install\n\nnpm install thing, then import it in your project and call it.', 'README.md', 'Thing');
    expect(page.title).toBe('Thing');
    expect(page.chunks.map((c) => c.title)).toEqual(['Thing', 'Thing › Install']);
  });

  it('drops tables of contents and markup-only chunks', () => {
    const toc = ['## Table of Contents', '- [Install](#install)', '- [Usage](#usage)', '- [Options](#options)', '- [Errors](#errors)', '- [License](#license)'].join('\n');
    expect(isNoise(toc)).toBe(true);
    expect(isNoise('<p align="center"><img src="https://example.com/logo.svg"></p>\n[![npm](https://img.shields.io/npm/v/x.svg)](https://npm.im/x)')).toBe(true);
    expect(isNoise('Use `reply.header(name, value)` to set a response header before sending the payload.')).toBe(false);
  });
});
