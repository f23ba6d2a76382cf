import { describe, expect, it } from 'vitest';
import { parseBlocks } from '../../workers/shared/markdown.js';
import { buildUnits } from '../../workers/text/units.js';

const md = [
  '# Title',
  '',
  'Intro paragraph. Second sentence.',
  '',
  '## Install',
  '',
  '- first item. With two sentences.',
  '- second item',
  '  continued line',
  '',
  '| Name | Value |',
  '|------|-------|',
  '| a    | 1     |',
  '| b    | 2     |',
  '',
  '```js',
  'const x = 1;',
  'console.log(x);',
  '```',
  '',
  '> A quote. Two sentences.',
  '',
  'Setext heading',
  '--------------',
  '',
  'Tail.',
].join('\n');

describe('markdown structure', () => {
  const blocks = parseBlocks(md);
  const kinds = blocks.map((b) => b.kind);

  it('finds headings, paragraphs, lists, tables, code and quotes in order', () => {
    expect(kinds).toEqual(['heading', 'paragraph', 'heading', 'list', 'list', 'table', 'code', 'quote', 'heading', 'paragraph']);
    expect(blocks[0]!.level).toBe(1);
    expect(blocks[2]!.level).toBe(2);
    expect(blocks[8]!.level).toBe(2);
  });

  it('keeps list continuation lines inside the item', () => {
    expect(md.slice(blocks[4]!.start, blocks[4]!.end)).toBe('- second item\n  continued line');
  });

  it('nests sections under their headings', () => {
    expect(blocks[3]!.headings).toEqual([0, 2]);
    expect(blocks[1]!.headings).toEqual([0]);
  });

  it('builds sentence, table-row and code units with dependencies', () => {
    const units = buildUnits(md, blocks);
    const rows = units.filter((u) => u.kind === 'row');
    expect(rows.map((r) => md.slice(r.start, r.end))).toEqual(['| a    | 1     |', '| b    | 2     |']);
    const head = units.findIndex((u) => u.kind === 'table-head');
    expect(rows.every((r) => r.requires.includes(head))).toBe(true);
    const listSentences = units.filter((u) => u.block === 3).map((u) => md.slice(u.start, u.end));
    expect(listSentences).toEqual(['first item.', 'With two sentences.']);
    expect(units.some((u) => u.kind === 'code')).toBe(true);
  });

  it('gives plain text sections from heading-like lines and blank-line blocks', () => {
    const plain = 'INTRODUCTION\n\nThis is the first block. It has two sentences.\n\nInstallation Guide\n\nRun the installer and wait.\n';
    const b = parseBlocks(plain);
    expect(b.map((x) => x.kind)).toEqual(['heading', 'paragraph', 'heading', 'paragraph']);
    expect(b[3]!.headings).toEqual([2]);
  });

  it('treats RST-style underlined titles (pydoc) as headings', () => {
    const rst = 'The "with" statement\n********************\n\nBody text here.\n';
    expect(parseBlocks(rst).map((x) => x.kind)).toEqual(['heading', 'paragraph']);
  });
});
