// Compression inside kept sentences (issue 48): plain selection sees a sentence's clauses as units, so a
// kept sentence can hide a remark that states nothing a reader acts on; the round trip stays exact.
import { describe, expect, it } from 'vitest';
import { clauseSpans } from '../../workers/text/clauses.js';
import { buildUnits } from '../../workers/text/units.js';
import { parseBlocks } from '../../workers/shared/markdown.js';
import { compressText } from '../../workers/text/index.js';
import { expanded } from '../../bench/quality/properties.js';

const pieces = (s: string) => clauseSpans(s).map((c) => s.slice(c.start, c.end));

describe('clauseSpans', () => {
  it('cuts before a parenthesis, a dash, a conjunction after a comma and after a semicolon', () => {
    expect(pieces('The pool holds ten connections (more rarely helps on a small host) and grows on demand.')).toEqual([
      'The pool holds ten connections',
      '(more rarely helps on a small host)',
      'and grows on demand.',
    ]);
    expect(pieces('Uploads are limited to 25 MB; larger files are rejected with HTTP 413.')).toEqual([
      'Uploads are limited to 25 MB;',
      'larger files are rejected with HTTP 413.',
    ]);
    expect(pieces('It binds to 127.0.0.1 by default, which is what you want behind a reverse proxy.')).toEqual([
      'It binds to 127.0.0.1 by default,',
      'which is what you want behind a reverse proxy.',
    ]);
    expect(pieces('Signing keys rotate every month — the old key stays valid for a further week — and each rotation is logged.')).toEqual([
      'Signing keys rotate every month',
      '— the old key stays valid for a further week',
      '— and each rotation is logged.',
    ]);
  });

  it('never cuts inside a code span or a link, and keeps clauses of fewer than four words with their neighbour', () => {
    expect(pieces('Run `deploy --force; echo done (twice)` on the host before you start.')).toHaveLength(1);
    expect(pieces('See [the guide (with examples), which is long](https://example.org/a) for the whole list of options.')).toHaveLength(1);
    expect(pieces('Set it (once) before you start the service on the host.')).toHaveLength(1);
  });

  it('tiles the sentence: what lies between two clauses is blank', () => {
    const s = 'Requests time out after 30 seconds (the proxy may cut them sooner), and retries back off; each retry waits twice as long.';
    const spans = clauseSpans(s);
    expect(spans[0]!.start).toBe(0);
    expect(spans.at(-1)!.end).toBe(s.length);
    for (let k = 1; k < spans.length; k++) expect(s.slice(spans[k - 1]!.end, spans[k]!.start)).toMatch(/^\s*$/);
  });
});

describe('clause units', () => {
  const text = '# Service\n\nThe service listens on port 8420 by default (a port nobody else on a typical host happens to use), and binds to 127.0.0.1.\n';

  it('are built for plain selection only: each later clause requires the first', () => {
    const blocks = parseBlocks(text);
    expect(buildUnits(text, blocks).filter((u) => u.kind === 'sentence')).toHaveLength(1);
    const units = buildUnits(text, blocks, true);
    const clauses = units.map((u, i) => ({ u, i })).filter(({ u }) => u.kind === 'sentence');
    expect(clauses.map(({ u }) => text.slice(u.start, u.end))).toEqual([
      'The service listens on port 8420 by default',
      '(a port nobody else on a typical host happens to use),',
      'and binds to 127.0.0.1.',
    ]);
    for (const { u } of clauses.slice(1)) expect(u.requires).toEqual([clauses[0]!.i]);
  });

  it('let a kept sentence hide a remark that states no fact, and the output still rebuilds the input', async () => {
    const filler = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} describes the history of the project in general terms that nobody acts on.`).join(' ');
    const doc =
      '# Ledger\n\nLedger keeps accounts for small teams.\n\n## Configuration\n\n' +
      'Each upload is limited to 25 MB (a limit that was chosen long ago after a long discussion among the early maintainers of the project about typical receipts), and larger files are rejected with HTTP 413.\n\n' +
      `## History\n\n${filler}\n`;
    const r = await compressText({ text: doc, fidelity: 'balanced', markerIds: true });
    expect(r.compressed_text).toContain('Each upload is limited to 25 MB');
    expect(r.compressed_text).not.toContain('a limit that was chosen long ago');
    expect(expanded(doc, r)).toBe(doc);
    // With a query, sentences stay whole: a query-guided output keeps or hides the sentence entire.
    const q = await compressText({ text: doc, fidelity: 'balanced', query: 'upload size limit', markerIds: true });
    expect(q.compressed_text.includes('Each upload is limited to 25 MB')).toBe(q.compressed_text.includes('a limit that was chosen long ago'));
    expect(expanded(doc, q)).toBe(doc);
  });
});
