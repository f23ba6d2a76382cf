// What a README's plain compression keeps: the sentence that says what the thing is, not badge rows or
// contributor avatars whose link targets are full of host names and numbers (issue 23's detail
// selection counted those as details).
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { unitDetails } from '../../workers/text/details.js';
import { headingName } from '../../workers/text/markers.js';
import { leadUnit } from '../../workers/text/score.js';
import { badgeTailStart, linksOnly } from '../../workers/text/links.js';
import { parseBlocks } from '../../workers/shared/markdown.js';
import { buildUnits } from '../../workers/text/units.js';

const avatars = Array.from(
  { length: 12 },
  (_, i) => `[![Person ${i}](https://avatars3.githubusercontent.com/u/${118266 + i * 7919}?v=3&s=50)](https://github.com/person${i})`,
).join('\n');

const option = (name: string, i: number) =>
  `##### ${name}\n\nWhen set, the renderer treats the widget's \`${name}\` field as the source of its layout, ` +
  `so a caller that passes a plain object gets the same frames on every run of the same description ${i}.`;

/** A README shaped like many on npm: title, badges, a one-line description, install, API, contributors. */
const README = [
  '# widget',
  '[![NPM Version][npm-image]][npm-url] [![Build Status][ci-image]][ci-url]\n[![Coverage][cov-image]][cov-url]',
  'Draw terminal widgets from a plain description in a single call, with no setup of your own.',
  '## Install',
  '```sh\n$ npm install widget\n```',
  '## API',
  '### render(spec, options)',
  'Renders `spec` and returns the frame as a string. The options below change how the frame is laid out.',
  ...['width', 'height', 'border', 'padding', 'margin', 'align', 'wrap', 'colour'].map(option),
  '## Contributors',
  avatars,
  '[npm-image]: https://img.shields.io/npm/v/widget.svg\n[npm-url]: https://npmjs.org/package/widget\n[ci-image]: https://badgen.net/github/checks/widget/main\n[ci-url]: https://github.com/widget/widget/actions\n[cov-image]: https://badgen.net/coveralls/c/github/widget/main\n[cov-url]: https://coveralls.io/r/widget',
].join('\n\n');

describe('README noise in plain mode', () => {
  it('link and image targets hold no details; the link text and bare prose do', () => {
    const text = 'See [the `render` docs](https://example.com/v2.1/render.html) for width_px.\n\n[ref]: https://x.org/a_b/1234';
    const units = buildUnits(text, parseBlocks(text));
    const [first, definition] = unitDetails(text, units);
    expect(first).toHaveLength(2); // `render` and width_px; not example.com, v2.1 or render.html
    expect(definition ?? []).toHaveLength(0);
  });

  it('an HTML comment holds no details, so balanced does not keep it for its names', async () => {
    const comment = '<!--\n  -- This file is auto-generated from README_js.md. Changes should be made there.\n  -->';
    const units = buildUnits(comment, parseBlocks(comment));
    expect(unitDetails(comment, units).flat()).toEqual([]);
    const options = Array.from({ length: 30 }, (_, i) => `## Option ${i}\n\nWhen set, the renderer treats the widget's \`opt${i}\` field as the source of its layout ${i}.`);
    const text = [comment, '# widget', 'Draw terminal widgets from a plain description in a single call, with no setup of your own.', ...options].join('\n\n');
    const r = await compressText({ text, fidelity: 'balanced', markerIds: true });
    expect(r.compressed_text).not.toContain('README_js.md');
    expect(r.compressed_text).toContain('Draw terminal widgets');
  });

  it('a badge row is links only; a sentence with a link is not', () => {
    expect(linksOnly('[![NPM Version][npm-image]][npm-url] [![Build][ci-image]][ci-url]')).toBe(true);
    expect(linksOnly('<img src="logo.png"> [![x](https://b.io/x.svg)](https://b.io)')).toBe(true);
    expect(linksOnly('Built on [PGlite](https://pglite.dev).')).toBe(false);
  });

  it("a title's trailing badges start after the last word; a line of words only has none", () => {
    const title = '# css-select [![NPM version](https://img.shields.io/npm/v/css-select.svg)](https://npmjs.org/package/css-select) [![CI](https://x.io/b.svg)](https://x.io)';
    expect(title.slice(badgeTailStart(title))).toMatch(/^\[!\[NPM version\]/);
    expect(badgeTailStart('# Install [the CLI](https://x.io) first')).toBe(-1);
    expect(badgeTailStart('# [![logo](l.png)](https://x.io)')).toBe(-1); // no words before the images
    // Bare bracketed parameters are not badges: the heading stays one unit, named `createError()`.
    const api = '### createError([status], [message], [properties])';
    expect(badgeTailStart(api)).toBe(-1);
    const units = buildUnits(api, parseBlocks(api));
    expect(units.map((u) => [u.kind, api.slice(u.start, u.end)])).toEqual([['heading', api]]);
    expect(headingName(api)).toBe('createError()');
  });

  it('a title with badges keeps its words; the badges are hidden behind a marker that expands to them', async () => {
    const badged = README.replace('# widget', '# widget [![NPM Version](https://img.shields.io/npm/v/widget.svg)](https://npmjs.org/package/widget) [![Build](https://github.com/widget/widget/actions/workflows/ci.yml/badge.svg)](https://github.com/widget/widget/actions)');
    const r = await compressText({ text: badged, fidelity: 'balanced', markerIds: true });
    // The marker stands where the badges stood, on the title's line (exact round trip, issue 48).
    expect(r.compressed_text).toMatch(/^# widget \[… \d+ tokens #\d{12}\.0\]\n\nDraw terminal widgets/);
    expect(r.compressed_text).not.toContain('img.shields.io');
    const [start, end] = r.markers!.spans;
    // The run goes on through the badge row below the title.
    expect(badged.slice(start, end)).toMatch(/^\[!\[NPM Version\][^\n]*\]\(https:\/\/github\.com\/widget\/widget\/actions\)\n\n\[!\[NPM Version\]\[npm-image\]/);
  });

  it('the lead is the first sentence with words of its own under the title, skipping badges', () => {
    const units = buildUnits(README, parseBlocks(README));
    const lead = leadUnit(README, parseBlocks(README), units);
    expect(README.slice(units[lead]!.start, units[lead]!.end)).toMatch(/^Draw terminal widgets/);
    const html = '<h1>chai</h1>\n\n<p align="center">\n  Chai is an assertion library for node and the browser.\n</p>\n\nFor more, see the docs here.';
    const htmlUnits = buildUnits(html, parseBlocks(html));
    const htmlLead = leadUnit(html, parseBlocks(html), htmlUnits);
    expect(html.slice(htmlUnits[htmlLead]!.start, htmlUnits[htmlLead]!.end)).toContain('Chai is an assertion library');
    const late = '# a\n\n## b\n\nFirst words of a later section.';
    expect(leadUnit(late, parseBlocks(late), buildUnits(late, parseBlocks(late)))).toBe(-1);
  });

  it('balanced keeps the description and leaves the avatars out', async () => {
    for (const fidelity of ['balanced', 'detailed'] as const) {
      const r = await compressText({ text: README, fidelity, markerIds: true });
      expect(r.savings_percent, fidelity).toBeGreaterThan(fidelity === 'detailed' ? 30 : 60);
      expect(r.compressed_text, fidelity).toContain('Draw terminal widgets from a plain description');
      expect(r.compressed_text, fidelity).not.toContain('avatars3.githubusercontent.com');
    }
  });

  it('marker names show a signature heading as name() and never a comma of their own', () => {
    expect(headingName('### onFinished(res, listener)')).toBe('onFinished()');
    expect(headingName('## Tips, tricks and [links](x)')).toBe('Tips tricks and links');
    expect(headingName('## a: b # c')).toBe('a b c');
    expect(headingName('##### PowerShell (VS Code default)')).toBe('PowerShell VS Code default');
  });
});
