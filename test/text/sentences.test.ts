import { describe, expect, it } from 'vitest';
import { sentences } from '../../workers/text/index.js';

describe('sentence splitter', () => {
  const cases: [string, string[]][] = [
    ['Use a tool, e.g. Python, for this. It works.', ['Use a tool, e.g. Python, for this.', 'It works.']],
    ['Pick one, i.e. The first. Then stop.', ['Pick one, i.e. The first.', 'Then stop.']],
    ['Dr. Smith arrived. Mr. Jones left.', ['Dr. Smith arrived.', 'Mr. Jones left.']],
    ['Pi is about 3.14 in most cases. Next.', ['Pi is about 3.14 in most cases.', 'Next.']],
    ['Upgrade to v1.2.3 today. Version 1.2 is broken.', ['Upgrade to v1.2.3 today.', 'Version 1.2 is broken.']],
    ['See https://example.com/docs/v2.1/index.html for details. Then continue.', ['See https://example.com/docs/v2.1/index.html for details.', 'Then continue.']],
    ['Visit https://example.com. Then continue.', ['Visit https://example.com.', 'Then continue.']],
    ['Edit /etc/nginx/nginx.conf and ./src/index.ts first. Then reload.', ['Edit /etc/nginx/nginx.conf and ./src/index.ts first.', 'Then reload.']],
    ['Call `obj.run(). Next` inside. Done!', ['Call `obj.run(). Next` inside.', 'Done!']],
    ['Is it? Yes! Great.', ['Is it?', 'Yes!', 'Great.']],
    ['J. R. R. Tolkien wrote it. The U.S. Army read it.', ['J. R. R. Tolkien wrote it.', 'The U.S. Army read it.']],
    ['See Fig. 3 for the plot. It rises.', ['See Fig. 3 for the plot.', 'It rises.']],
    ['He said "Stop." Then he left.', ['He said "Stop."', 'Then he left.']],
    ['no terminal punctuation', ['no terminal punctuation']],
  ];
  for (const [input, expected] of cases) {
    it(`splits ${JSON.stringify(input.slice(0, 40))}`, () => {
      expect(sentences(input)).toEqual(expected);
    });
  }

  it('cuts over-long run-on text into verbatim pieces', () => {
    const line = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const parts = sentences(line);
    expect(parts.length).toBeGreaterThan(3);
    for (const p of parts) {
      expect(line.includes(p)).toBe(true);
      expect(p.length).toBeLessThanOrEqual(600);
    }
  });
});

describe('sentence splitter on hostile input', () => {
  it('stays linear on long space-free runs', async () => {
    const { splitSentences } = await import('../../workers/text/sentences.js');
    for (const unit of ['a.', 'a-', 'a/', 'x.y/']) {
      const text = `Start here. ${unit.repeat(20_000)} End there.`;
      const t0 = performance.now();
      const spans = splitSentences(text);
      expect(performance.now() - t0, unit).toBeLessThan(300);
      expect(text.slice(spans.at(-1)!.start, spans.at(-1)!.end)).toMatch(/End there\.$/);
    }
  });
});
