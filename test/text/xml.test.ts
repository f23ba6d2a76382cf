// XML sent to the text engine (workers/text/xml.ts): units are whole elements, comments units of their
// own. Cut as prose, a 200-case JUnit report (5,000 tokens) came back at balanced with 4 of its 6
// failures, in pieces that began and ended inside elements (a `<failure>` line without its stack line
// or closing tag), and markers that named nothing: `[… 2059 tokens #…]`.
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { xmlUnits } from '../../workers/text/xml.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { junitReport } from '../helpers/junit.js';

const MARKER = /\[… [^\]\n]*tokens?(?: #\d{12}\.\d+)?\]/g;
const hiddenOf = (text: string, spans: number[]) => Array.from({ length: spans.length / 2 }, (_, n) => text.slice(spans[2 * n], spans[2 * n + 1]));

/** A Maven-style settings file: a licence prolog, commented-out examples around a few real elements. */
const SETTINGS = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<!--',
  ...Array.from({ length: 12 }, (_, i) => `Licence line ${i}: you may not use this file except in compliance with the License, clause ${i}.`),
  '-->',
  '<settings xmlns="http://maven.apache.org/SETTINGS/1.2.0">',
  ...Array.from({ length: 10 }, (_, i) => [
    `  <!-- option${i}`,
    `   | Explains what option ${i} does, when it applies and what its default is. It is rarely changed.`,
    `   | Default: ${i * 10}`,
    `  <option${i}>${i * 10}</option${i}>`,
    '  -->',
    `  <mirror${i}><id>mirror-${i}</id><url>https://repo${i}.example.org/maven2</url><mirrorOf>central</mirrorOf></mirror${i}>`,
  ]).flat(),
  '</settings>',
].join('\n');

describe('XML: whole elements, comments on their own', () => {
  it('a JUnit report keeps every failure, and each marker names and counts the test cases it hides', async () => {
    const text = junitReport();
    let last = 0;
    for (const fidelity of ['outline', 'balanced', 'detailed'] as const) {
      const r = await compressText({ text, fidelity, markerIds: true });
      expect(r.savings_percent, fidelity).toBeGreaterThan(fidelity === 'detailed' ? 30 : 70);
      expect(r.compressed_tokens, fidelity).toBeGreaterThan(last);
      last = r.compressed_tokens;
      // Every output line is an input line, or a marker standing where whole test cases stood.
      const lines = new Set(text.split('\n'));
      for (const line of r.compressed_text.split('\n')) if (!MARKER.test(line)) expect(lines.has(line), line).toBe(true);
      const markers = [...r.compressed_text.matchAll(MARKER)].map((m) => m[0]);
      const hidden = hiddenOf(text, r.markers!.spans);
      expect(hidden.length).toBe(markers.length);
      markers.forEach((m, k) => {
        const cases = [...hidden[k]!.matchAll(/<testcase [^>]*name="([^"]+)"/g)].map((c) => c[1]);
        expect(m, hidden[k]!.slice(0, 80)).toContain(`${cases.length} item${cases.length === 1 ? '' : 's'} (${cases[0]}`);
        expect(hidden[k]!.trimEnd()).toMatch(/(?:\/>|<\/testcase>)$/);
      });
      if (fidelity !== 'outline') expect(r.compressed_text.match(/<failure /g), fidelity).toHaveLength(6);
    }
  });

  it('comments and a licence prolog are hidden on their own; the elements stay whole', async () => {
    const r = await compressText({ text: SETTINGS, fidelity: 'balanced', markerIds: true });
    expect(r.compressed_tokens).toBeLessThan(countTokens(SETTINGS) * 0.3);
    // The licence prolog is hidden on its own: cut into its sentences inside the comment (`<!--` and
    // `-->` stay), or whole when detailed, which balanced nests in, kept none of it (issue 48).
    expect(r.compressed_text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n(<!--\nLicence line 0[^\n]*\n\[… 11 sentences: \d+ tokens #\d{12}\.0\]\n-->|\[… \d+ tokens #\d{12}\.0\])\n<settings /);
    expect(hiddenOf(SETTINGS, r.markers!.spans)[0]).toMatch(/^(<!--\n)?Licence line [01]:[^]*clause 11\.(\n-->)?$/);
    expect(r.compressed_text).toContain('<settings xmlns="http://maven.apache.org/SETTINGS/1.2.0">');
    expect(r.compressed_text.trimEnd().endsWith('</settings>')).toBe(true);
    // Kept elements are whole; a hidden comment run never takes part of an element with it.
    for (const m of r.compressed_text.matchAll(/<mirror(\d)>.*$/gm)) expect(m[0]).toMatch(new RegExp(`</mirror${m[1]}>$`));
    for (const h of hiddenOf(SETTINGS, r.markers!.spans)) expect(h.split(/<mirror\d>/).length).toBe(h.split(/<\/mirror\d>/).length);
    expect(r.compressed_text).toMatch(/<mirror\d>/);
  });

  it('not taken for an XML tree: a page, prose marked up inline, broken or several roots, Markdown', () => {
    expect(xmlUnits(junitReport(6))).not.toBeNull();
    expect(xmlUnits('<html><body><div><p>a</p><p>b</p><p>c</p></div></body></html>')).toBeNull();
    const docbook = `<article><para>The <command>ls</command> command lists <filename>/tmp</filename> and more text here, ${'which goes on in prose for a while, '.repeat(5)}</para><para>Another <emphasis>paragraph</emphasis> of prose.</para></article>`;
    expect(xmlUnits(docbook)).toBeNull();
    expect(xmlUnits('<a><b>1</b><c>2</c><d>3</b></a>')).toBeNull();
    expect(xmlUnits('<a><b>1</b></a><a><b>2</b><c>3</c></a>')).toBeNull();
    expect(xmlUnits('<p align="center"><img src="x.png"></p>\n\n# Title\n\nSome <b>bold</b> text, <i>more</i>, <code>code</code>.')).toBeNull();
  });
});
