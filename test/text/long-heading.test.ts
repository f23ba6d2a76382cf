// A README flattened to one "# ..." line is prose, not a heading: balanced keeps some of its sentences.
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { MARKER, realDoc } from './helpers.js';

/** The postgres README's prose, flattened onto one line behind "# ", cut to about 700 tokens. */
function flattenedReadme(): string {
  const prose = realDoc()
    .split(/\n{2,}/)
    .filter((p) => !/^(```|\||<|#|\s{4}|\[)/.test(p))
    .join(' ')
    .replace(/\s+/g, ' ');
  let line = '# ';
  for (const word of prose.split(' ')) {
    if (countTokens(line + word) > 701) break;
    line += (line === '# ' ? '' : ' ') + word;
  }
  return line;
}

describe('a one-line "heading" of hundreds of tokens', () => {
  it('is compressed as prose: balanced keeps sentences, not just a marker', async () => {
    const text = flattenedReadme();
    expect(countTokens(text)).toBeGreaterThan(650);
    const r = await compressText({ text, fidelity: 'balanced' });
    const kept = r.compressed_text.replace(MARKER, '').trim();
    expect(r.compressed_text).not.toMatch(/^\[… 1 heading, \d+ tokens\]$/);
    expect(countTokens(kept)).toBeGreaterThan(r.compressed_tokens / 2);
    expect(r.units_kept).toBeGreaterThan(0);
    expect(r.compressed_tokens).toBeLessThanOrEqual(Math.ceil(r.original_tokens * 0.2) + 2);
  });

  it('a short heading line stays a heading', async () => {
    const text = '# Connection pooling\n\n' + realDoc().split(/\n{2,}/).filter((p) => /^[A-Z]/.test(p)).slice(0, 20).join('\n\n');
    const r = await compressText({ text, fidelity: 'balanced' });
    expect(r.compressed_text.startsWith('# Connection pooling')).toBe(true);
  });
});
