// Changelogs in plain mode: the newest release is what a reader wants, so it is kept before older
// releases' entries, whichever order the file uses; older releases stay named in the markers.
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { releaseRanks } from '../../workers/text/releases.js';
import { parseBlocks } from '../../workers/shared/markdown.js';
import { buildUnits } from '../../workers/text/units.js';
import { markerFor } from '../../workers/text/render.js';

const WORDS = ['parser', 'serializer', 'walker', 'tokenizer', 'printer', 'resolver', 'loader', 'cache'];

/** Release `v` with three kinds of entries, each naming functions and options of its own. */
function release(v: number): string {
  const version = `${2 + Math.floor(v / 4)}.${v % 4}.0`;
  const entry = (k: number) => {
    const w = WORDS[(v + k) % WORDS.length]!;
    return `- The \`${w}${v}_${k}\` option of \`create${w[0]!.toUpperCase()}${w.slice(1)}()\` now defaults to \`${v * 10 + k}\` (was \`${k}\`), see #${1000 + v * 10 + k}.`;
  };
  return [
    `## ${version} (2025-${String(1 + (v % 12)).padStart(2, '0')}-1${v % 9})`,
    '### New features',
    [0, 1, 2].map(entry).join('\n'),
    '### Bug fixes',
    [3, 4, 5].map(entry).join('\n'),
  ].join('\n\n');
}

const releases = Array.from({ length: 10 }, (_, i) => release(i));
const NEWEST_FIRST = ['# Changelog', 'All notable changes to this project are documented in this file.', ...releases.slice().reverse()].join('\n\n');
const OLDEST_FIRST = ['# Changelog', 'All notable changes to this project are documented in this file.', ...releases].join('\n\n');
/** The entries of the newest release (index 9). */
const newest = release(9).split('\n').filter((l) => l.startsWith('- '));

function ranks(text: string) {
  const blocks = parseBlocks(text);
  return releaseRanks(text, blocks, buildUnits(text, blocks));
}

describe('changelogs in plain mode', () => {
  it('keeps every entry of the newest release at balanced, newest-first or oldest-first', async () => {
    for (const text of [NEWEST_FIRST, OLDEST_FIRST]) {
      const r = await compressText({ text, fidelity: 'balanced', markerIds: true });
      expect(r.compressed_tokens).toBeLessThan(r.original_tokens * 0.25);
      for (const line of newest) expect(r.compressed_text).toContain(line);
      // Older releases are hidden behind markers that name their versions.
      expect(r.compressed_text, r.compressed_text).toMatch(/\[… [2-4]\.\d\.0 2025-\d\d-\d\d/);
    }
  });

  it('outside a changelog nothing changes: numbered sections are not releases', () => {
    const spec = ['# Spec', ...[1, 2, 3, 4].flatMap((s) => [`## ${s}.1 Overview`, 'Some text here.', `## ${s}.2 Setup`, 'More text.'])].join('\n\n');
    expect(ranks(spec)).toBeNull();
    const deep = ['# Spec', ...[1, 2, 3, 4].flatMap((s) => [`### 2.${s}.1 Scope`, 'Some text here.', `### 2.${s}.2 Terms`, 'More text.'])].join('\n\n');
    expect(ranks(deep)).toBeNull();
    expect(ranks('# Guide\n\n## 1.2.3\n\ntext\n\n## Usage\n\ntext\n\n## API\n\ntext\n\n## FAQ\n\ntext')).toBeNull();
    // A README that ends with a short changelog is read for its usage first.
    const usage = Array.from({ length: 12 }, (_, i) => `## Option ${i}\n\nSets the widget's option number ${i} to the value the caller passes in.`).join('\n\n');
    const readme = `# tree-kill\n\n${usage}\n\n# Changelog\n\n## [1.2.2] - 2019-12-11\n\nFixed.\n\n## [1.2.1] - 2018-11-05\n\nFixed.\n\n## [1.2.0] - 2017-09-19\n\nAdded.`;
    expect(ranks(readme)).toBeNull();
  });

  it('reads the usual release headings and the file order', () => {
    const styles = [
      '## [0.8.15](https://github.com/x/y/compare/0.8.14...0.8.15)',
      '## domino 2.1.6 (16 Jul 2020)',
      '## v1.3 - 2025-09-29',
      '## 2024-01-15',
      '## **6.17.1**',
      '## 1.2.3 (Unreleased)',
    ];
    for (const head of styles) {
      const text = ['## Unreleased', 'Nothing yet.', `${head}`, 'Fixed a thing.', '## 0.1.0', 'First.', '## 0.0.9', 'Zeroth.'].join('\n\n');
      const r = ranks(text);
      expect(r, head).not.toBeNull();
      const blocks = parseBlocks(text);
      const units = buildUnits(text, blocks);
      const at = (s: string) => r![units.findIndex((u) => text.slice(u.start, u.end).startsWith(s))];
      expect([at('Nothing'), at('Fixed'), at('First'), at('Zeroth')], head).toEqual([0, 1, 2, 3]);
    }
    const setext = ['4.17.1 / 2019-05-25', '==================', '', '  * Revert a change', '', '4.17.0 / 2019-05-16', '===', '', '  * Add a thing', '', '4.16.4 / 2018-10-10', '===', '', '  * Fix'].join('\n');
    expect(ranks(setext)).not.toBeNull();
    // standard-version: patch releases at ###, beside their own ### Bug Fixes; minor releases at ##.
    const sv = ['# Changelog', '### [1.1.1](https://x.io/c) (2020-11-26)', '### Bug Fixes', '* fix one', '## [1.1.0](https://x.io/c) (2020-11-21)', '### Features', '* feature', '### [1.0.2](https://x.io/c) (2020-06-12)', '### Bug Fixes', '* fix two'].join('\n\n');
    const svRanks = ranks(sv)!;
    const svUnits = buildUnits(sv, parseBlocks(sv));
    expect(['* fix one', '* feature', '* fix two'].map((t) => svRanks[svUnits.findIndex((u) => sv.slice(u.start, u.end).startsWith(t.slice(2)))])).toEqual([0, 1, 2]);
    const oldestFirst = ['## 1.0.0', 'a', '## 1.1.0', 'b', '## 2.0.0', 'c'].join('\n\n');
    const r = ranks(oldestFirst)!;
    const units = buildUnits(oldestFirst, parseBlocks(oldestFirst));
    expect(r[units.findIndex((u) => oldestFirst.slice(u.start, u.end) === 'c')]).toBe(0);
  });

  it('a marker names the hidden headings of its shallowest level: releases, not their subsections', () => {
    const text = ['### Bug fixes', 'Fixed a thing.', '## 2.1.0', '### New features', 'Added a thing.', '## 2.0.0', 'First.'].join('\n\n');
    const blocks = parseBlocks(text);
    const units = buildUnits(text, blocks);
    const sk = { text, blocks, units, tokens: units.map(() => 3) };
    expect(markerFor(sk, 0, units.length - 1, '000000000000')).toBe(`[… 2.1.0, 2.0.0 +2 more: ${units.length * 3} tokens #000000000000.0]`);
    // One level: the first two, in document order, as before.
    const flat = ['## Install', 'a', '## Usage', 'b', '## API', 'c'].join('\n\n');
    const fb = parseBlocks(flat);
    const fu = buildUnits(flat, fb);
    expect(markerFor({ text: flat, blocks: fb, units: fu, tokens: fu.map(() => 1) }, 0, fu.length - 1, '000000000000')).toMatch(/^\[… Install, Usage \+1 more: /);
  });
});
