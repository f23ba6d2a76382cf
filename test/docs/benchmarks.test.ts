import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderBenchmarksDoc, sectionBody } from '../../scripts/docs/benchmarks.js';
import { packageRoot } from '../../src/lib/root.js';

describe('docs/benchmarks.md', () => {
  it('carries the measured sections of the area docs verbatim (npm run docs:benchmarks)', () => {
    const onDisk = readFileSync(join(packageRoot(), 'docs', 'benchmarks.md'), 'utf8');
    expect(onDisk).toBe(renderBenchmarksDoc());
    expect(onDisk).toContain('<!-- include: docs/code-engine.md#Benchmarks -->');
  });

  it('cuts a section at the next heading of the same or a higher level, not inside code fences', () => {
    const md = '# A\nintro\n## B\nb1\n### B.1\nb2\n```\n## not a heading\n```\n## C\nc\n';
    expect(sectionBody(md, 'B')).toBe('b1\n### B.1\nb2\n```\n## not a heading\n```\n');
    expect(sectionBody(md, 'C')).toBe('c\n');
    expect(() => sectionBody(md, 'D', 'x.md')).toThrow(/x.md: no section titled "D"/);
  });
});
