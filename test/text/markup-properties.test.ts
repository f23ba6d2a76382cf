// Properties of the HTML and XML paths on generated markup (fast-check): whatever the tags, entities,
// comments and nesting, nothing throws, offsets back into the page stay in order and in bounds, and a
// compression never answers with more tokens than it was sent and marks only spans of what was sent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { htmlText } from '../../workers/text/html.js';
import { xmlUnits } from '../../workers/text/xml.js';

const word = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 .,:;'"()&<>-]{0,30}$/);
const name = fc.constantFrom('p', 'div', 'li', 'ul', 'h2', 'pre', 'code', 'td', 'tr', 'table', 'a', 'b', 'script', 'style', 'item', 'x:y', 'br', 'hr');
const piece: fc.Arbitrary<string> = fc.oneof(
  word,
  fc.constantFrom('&amp;', '&lt;', '&#x41;', '&#99999999;', '&nbsp;', '&bogus;', '&', '<', '>', '<!--', '-->', '<![CDATA[x]]>', '<?pi?>', '\n', '   ', '"', "'"),
  name.map((n) => `<${n}>`),
  name.map((n) => `</${n}>`),
  fc.tuple(name, word).map(([n, w]) => `<${n} title="${w.replace(/"/g, '')}">`),
  name.map((n) => `<${n}/>`),
);
const markup = fc.array(piece, { minLength: 1, maxLength: 120 }).map((p) => p.join(''));
const page = markup.map((body) => `<!DOCTYPE html><html><body>${body}</body></html>`);
const xmlDoc = fc.array(fc.tuple(name, word), { minLength: 4, maxLength: 60 }).map((items) => `<?xml version="1.0"?><root>${items.map(([n, w]) => `<${n.replace(':', '_')}>${w.replace(/[<&]/g, '')}</${n.replace(':', '_')}>`).join('\n')}</root>`);

describe('HTML and XML paths on generated markup', () => {
  it('the text of any page maps back into it in order', () => {
    fc.assert(
      fc.property(markup, (html) => {
        const t = htmlText(html);
        if (!t) return;
        let prev = 0;
        for (let k = 0; k <= t.text.length; k++) {
          const o = t.originalOffset(k);
          expect(o).toBeGreaterThanOrEqual(prev);
          expect(o).toBeLessThanOrEqual(html.length);
          prev = o;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('XML, well formed or not, is cut or refused without an error', () => {
    fc.assert(fc.property(markup, (text) => void xmlUnits(`<r>${text}</r>`)), { numRuns: 300 });
    fc.assert(
      fc.property(xmlDoc, (text) => {
        const u = xmlUnits(text);
        expect(u).not.toBeNull();
        for (const unit of u!.units) expect(unit.start).toBeLessThan(unit.end);
      }),
      { numRuns: 100 },
    );
  });

  it('a compressed page or document is never larger than what was sent, and its markers hide spans of it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(page, xmlDoc), fc.constantFrom('outline', 'balanced'), async (text, fidelity) => {
        const r = await compressText({ text, fidelity, markerIds: true });
        expect(r.compressed_tokens).toBeLessThanOrEqual(r.original_tokens);
        const spans = r.markers?.spans ?? [];
        for (let k = 0; k < spans.length; k += 2) {
          expect(spans[k]!).toBeGreaterThanOrEqual(k ? spans[k - 1]! : 0);
          expect(spans[k + 1]!).toBeGreaterThan(spans[k]!);
          expect(spans[k + 1]!).toBeLessThanOrEqual(text.length);
        }
      }),
      { numRuns: 120 },
    );
  });
});
