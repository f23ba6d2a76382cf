import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIGURES, renderDoc, withBlock } from '../../scripts/docs/figures.js';
import { packageRoot } from '../../src/lib/root.js';
import { allTools, toolList } from '../../src/mcp/registry.js';

describe('figures in docs/ (npm run docs:figures)', () => {
  it.each([...new Set(FIGURES.map((f) => f.doc))])('%s carries the figures the registry gives today', (file) => {
    expect(readFileSync(join(packageRoot(), file), 'utf8')).toBe(renderDoc(file));
  });

  it('counts every tool of the registry under `all`', () => {
    const table = FIGURES.find((f) => f.marker === 'toolsets')!.render();
    expect(table).toContain(`| \`all\` | ${allTools().length} | `);
    expect(toolList('all')).toHaveLength(allTools().length);
  });

  it('replaces only what lies between its markers, and says which file lacks them', () => {
    expect(withBlock('a\n<!-- x:start -->\nold\n<!-- x:end -->\nb', 'x', 'new', 'f.md')).toBe('a\n<!-- x:start -->\nnew\n<!-- x:end -->\nb');
    expect(() => withBlock('no markers', 'x', 'new', 'f.md')).toThrow(/f\.md: markers <!-- x:start -->/);
  });
});
