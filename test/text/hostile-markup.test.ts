// Link and tag patterns run over whole units, and a unit can be long (a fenced code line, an HTML
// block, a deeply nested JSON value). Each pattern once scanned from every `[`, `<` or `](` to the
// end of the unit: 60,000 `[` in a code block took 4 s of a worker, `[a](` repeated 20,000 times 6.6 s.
// Held by the growth of the cost with the length (same run, best of three), never by a time.
import { describe, expect, it } from 'vitest';
import { density } from '../../workers/text/score.js';
import { linksOnly } from '../../workers/text/links.js';
import { unitDetails } from '../../workers/text/details.js';
import { htmlText, looksLikeHtml } from '../../workers/text/html.js';
import { xmlUnits } from '../../workers/text/xml.js';

const best = (f: () => unknown, runs = 3) => {
  let ms = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    ms = Math.min(ms, performance.now() - t0);
  }
  return Math.max(0.5, ms);
};

/**
 * How many times the large input costs the small one: best-of-`runs` times, and the lowest ratio of up to
 * three rounds. A quadratic scan is 64x every round; a linear one measured about 8-12x, but a GC or a
 * preemption on a loaded machine can land in one round (single rounds read 45-75x under load).
 */
const growth = (large: () => unknown, small: () => unknown, runs = 3) => {
  let ratio = Infinity;
  for (let round = 0; round < 3 && ratio >= 16; round++) ratio = Math.min(ratio, best(large, runs) / best(small, runs));
  return ratio;
};

const PATTERNS: Record<string, (n: number) => string> = {
  'open brackets': (n) => '['.repeat(n),
  'open angles': (n) => '<'.repeat(n),
  'unclosed links': (n) => '[a]('.repeat(n / 4),
  'unclosed targets': (n) => '](x'.repeat(n / 3),
};

const SCANS: Record<string, (s: string) => unknown> = {
  density: (s) => density(s),
  linksOnly: (s) => linksOnly(`x ${s}`),
  unitDetails: (s) => unitDetails(s, [{ kind: 'code', block: 0, start: 0, end: s.length, indexInBlock: 0, requires: [], lineCount: 1 }]),
};

describe('link and tag scans are linear in the unit length', () => {
  for (const [pattern, make] of Object.entries(PATTERNS)) {
    it(`${pattern}: 8x the length costs far less than 64x the time`, () => {
      const small = make(10_000);
      const large = make(80_000);
      for (const [name, scan] of Object.entries(SCANS)) {
        // About 8x when linear, 64x when quadratic.
        expect(growth(() => scan(large), () => scan(small)), `${name}`).toBeLessThan(24);
      }
    });
  }
});

// An HTML page's text (workers/text/html.ts): one pass over the page whatever its tags do.
const PAGES: Record<string, (n: number) => string> = {
  'many skipped elements': (n) => `<html><body>${'<script>x</script><p>a</p>'.repeat(n / 26)}`,
  'unclosed tags and quotes': (n) => `<html>${'<a "<b \'<'.repeat(n / 9)}`,
  'blank lines after a tag': (n) => `<div>${'\n'.repeat(n)}`,
  'entities and spaces': (n) => `<html>${'&amp;&#x41; &bogus;  &'.repeat(n / 22)}`,
  'many heads without a title': (n) => `<html>${'<head></head><p>x</p>'.repeat(n / 21)}<title>t</title>`,
  // Furniture and main elements look for their close, nesting counted (htmlReading.ts).
  'hidden parts never closed': (n) => `<html><body>${'<div hidden><p>x</p>'.repeat(n / 20)}`,
  'furniture of many names never closed': (n) => `<body>${Array.from({ length: n / 30 }, (_, i) => `<x${i} aria-hidden="true">y`).join('')}`,
  'deeply nested menus': (n) => `<body>${'<ul role="menu"><li>'.repeat(n / 40)}${'</li></ul>'.repeat(n / 40)}<p>end</p>`,
  'many mains and one close': (n) => `<body>${'<main><p>x</p>'.repeat(n / 14)}</main>`,
  'code blocks never closed': (n) => `<body>${'<pre>```\n'.repeat(n / 9)}`,
  'tables and rows never closed': (n) => `<body>${'<table><tr><td>x<tr><th>y'.repeat(n / 26)}`,
};

describe('the text of an HTML page is found in time linear in its length', () => {
  for (const [pattern, make] of Object.entries(PAGES)) {
    it(`${pattern}: 8x the length costs far less than 64x the time`, () => {
      // 80k and 640k characters: below that a page's scan stays in the CPU's caches and the small one is
      // unusually cheap (unclosed code blocks: 28x from 20k to 160k, 11x from 160k to 1.28M, best of 9).
      const small = make(80_000);
      const large = make(640_000);
      const scan = (s: string) => (looksLikeHtml(s), htmlText(s));
      scan(small);
      scan(large);
      // About 8x when linear, 64x when quadratic (the two quadratic spots fixed measured over 100x).
      expect(growth(() => scan(large), () => scan(small), 5)).toBeLessThan(32);
    });
  }
});

// XML documents (workers/text/xml.ts): one pass to parse, whatever the nesting or the comments.
const DOCUMENTS: Record<string, (n: number) => string> = {
  'deep nesting': (n) => `${'<a>'.repeat(n / 7)}x${'</a>'.repeat(n / 7)}`,
  'many comments': (n) => `<r>${'<!-- c --><b>1</b>'.repeat(n / 18)}</r>`,
  'many siblings with attributes': (n) => `<r>${'<t name="x" v=\'1\'/>'.repeat(n / 20)}</r>`,
  'an unclosed quote': (n) => `<r><t name="${'x'.repeat(n)}`,
};

describe('XML is parsed in time linear in its length', () => {
  for (const [pattern, make] of Object.entries(DOCUMENTS)) {
    it(`${pattern}: 8x the length costs far less than 64x the time`, () => {
      const small = make(20_000);
      const large = make(160_000);
      // Each size once before timing: the first calls pay for compiling and for growing the heap.
      xmlUnits(small);
      xmlUnits(large);
      expect(growth(() => xmlUnits(large), () => xmlUnits(small), 5)).toBeLessThan(32);
    });
  }
});
