// Lead and setup pieces (issue 48): the lead sentence and the examples come before the rest of the
// lead paragraph, which is the first piece given up when the budget cannot hold them all.
import { describe, expect, it } from 'vitest';
import { setupPieces } from '../../workers/text/setup.js';
import { buildUnits } from '../../workers/text/units.js';
import { parseBlocks } from '../../workers/shared/markdown.js';

describe('setupPieces', () => {
  it('orders title, lead sentence, install and usage examples, then the rest of the lead paragraph', () => {
    const text = [
      '# fastclient',
      'A small HTTP client for the Example API (with retries and timeouts built in). This guide walks through its use in a service of your own.',
      '## Install',
      '```sh\nnpm install fastclient\n```',
      '## Usage',
      '```js\nimport { Client } from "fastclient";\nconst client = new Client();\nawait client.call({});\n```',
    ].join('\n\n');
    const units = buildUnits(text, parseBlocks(text), true);
    const tokens = units.map((u) => Math.ceil((u.end - u.start) / 4));
    const pieces = setupPieces(text, parseBlocks(text), units, tokens).map((p) => p.map((i) => text.slice(units[i]!.start, units[i]!.end)).join(' '));
    expect(pieces[0]).toBe('# fastclient');
    expect(pieces[1]).toBe('A small HTTP client for the Example API (with retries and timeouts built in).');
    expect(pieces[2]).toContain('npm install fastclient');
    expect(pieces[3]).toContain('new Client()');
    expect(pieces[4]).toBe('This guide walks through its use in a service of your own.');
    expect(pieces).toHaveLength(5);
  });
});
