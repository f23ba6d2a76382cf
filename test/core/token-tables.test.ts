// The byte-pair rank tables (workers/shared/bpeTable.ts) count exactly what the tokenizer library counts,
// and the files the build writes hold the same tables the library's rank lists give.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { BpeTable, buildBpeTable } from '../../workers/shared/bpeTable.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { TOKENIZERS, tokenTable, writeTokenTableFiles } from '../../workers/shared/tokenTables.js';
import { packageRoot } from '../../src/lib/root.js';

const LIBRARY = { o200k_base: o200k, cl100k_base: cl100k } as const;
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Every Markdown file under docs/ and the READMEs of a few installed packages. */
function corpus(): string[] {
  const root = packageRoot();
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f));
  const readmes = ['postgres', 'piscina', 'zod', 'vitest', 'ioredis', 'typescript'].map((p) => join(root, 'node_modules', p, 'README.md'));
  return [...docs, ...readmes].map((f) => readFileSync(f, 'utf8'));
}

describe('byte-pair rank tables', () => {
  it.each(TOKENIZERS)('count %s exactly as the library does over the docs and READMEs', (name) => {
    const texts = corpus();
    expect(texts.length).toBeGreaterThan(30);
    const differing = texts.filter((t) => countTokens(t, name) !== LIBRARY[name].countTokens(t, AS_TEXT));
    expect(differing.map((t) => t.slice(0, 80))).toEqual([]);
  });

  it.each(TOKENIZERS)('count %s exactly as the library does on any Unicode text', (name) => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => countTokens(text, name) === LIBRARY[name].countTokens(text, AS_TEXT)),
      { numRuns: 400, seed: 44 },
    );
  });

  it('finds every token of the rank list at its rank, and nothing that is not one', () => {
    const table = new BpeTable(buildBpeTable(['a', 'b', 'ab', 'é', [0xff, 0xfe]], false));
    const bytes = (s: string) => new TextEncoder().encode(s);
    expect(table.rankOfAscii('xaby', 1, 3)).toBe(2);
    expect(table.rankOfBytes(bytes('é'), 0, 2)).toBe(3);
    expect(table.rankOfBytes(Uint8Array.of(0xff, 0xfe), 0, 2)).toBe(4);
    expect(table.rankOfAscii('ba', 0, 2)).toBeUndefined();
    expect(table.size).toBe(5);
  });

  it.each(TOKENIZERS)('the build writes %s as the same tables the library gives, and they are what a thread loads', (name) => {
    const dir = join(tmpdir(), `gc-bpe-${process.pid}`);
    const [written] = writeTokenTableFiles(dir).filter((f) => f.endsWith(`${name}.bin`));
    const shipped = readFileSync(join(packageRoot(), 'dist', 'data', 'bpe', `${name}.bin`));
    expect(Buffer.compare(readFileSync(written!), shipped)).toBe(0);
    const loaded = tokenTable(name);
    expect(loaded.size).toBeGreaterThan(name === 'o200k_base' ? 199_000 : 100_000);
  });
});
