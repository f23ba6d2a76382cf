// Structural outputs can mark a class body and, inside it, a method body: the layout's spans are then
// not in increasing order, and offsets mapped back to a CRLF original must still name each body.
import { describe, expect, it } from 'vitest';
import { analyzeFiles, structuralFromAnalyses } from '../../workers/code/index.js';
import { originalSpans } from '../../workers/code/markers.js';

const methods = Array.from({ length: 6 }, (_, k) => `    def method_${k}(self, x):\n        """Doc ${k}."""\n        total = 0\n        for i in range(x):\n            total += i * ${k}\n        return total\n`).join('\n');
const LF = `class Widget:\n    """A widget."""\n\n${methods}\n\ndef helper(a, b):\n    return a + b\n`;

describe('originalSpans', () => {
  it('maps spans in any order (nested bodies) to the same bytes of a CRLF original', () => {
    const crlf = '\ufeff' + LF.replace(/\n/g, '\r\n');
    const spans = [18, 400, 70, 175, 410, 422];
    const out = originalSpans(crlf, LF, spans);
    for (let k = 0; k < spans.length; k += 2) {
      expect(crlf.slice(out[k], out[k + 1]).replace(/\r\n/g, '\n')).toBe(LF.slice(spans[k], spans[k + 1]));
    }
  });

  it('a structural output over a CRLF file: every marked body maps back to its source', async () => {
    const crlf = LF.replace(/\n/g, '\r\n');
    const analyses = await analyzeFiles([{ path: 'w.py', content: crlf }]);
    // Since issue 48 a class whose methods are shown opens as a header line above them (no marker of
    // its own), so a structural output's spans no longer nest; the first test covers spans in any order.
    let marked = 0;
    for (const token_budget of [100, 150, 200]) {
      const r = structuralFromAnalyses(analyses, { token_budget, markerIds: true });
      for (const m of r.markers ?? []) {
        marked += m.spans.length / 2;
        const out = originalSpans(crlf, analyses[m.file]!.content, m.spans);
        for (let k = 0; k < out.length; k += 2) {
          expect(crlf.slice(out[k], out[k + 1]).replace(/\r\n/g, '\n')).toBe(analyses[m.file]!.content.slice(m.spans[k], m.spans[k + 1]));
        }
      }
    }
    expect(marked).toBeGreaterThan(0);
  });
});
