import { describe, expect, it } from 'vitest';
import { CodeInputError, SUPPORTED_LANGUAGES, compressCode, analyzeFile } from './helpers.js';

describe('robustness', () => {
  it('lists every grammar-backed language', () => {
    expect([...SUPPORTED_LANGUAGES].sort()).toEqual(['c', 'cpp', 'go', 'java', 'javascript', 'python', 'rust', 'tsx', 'typescript']);
  });

  it('handles an empty file', () => {
    for (const fidelity of ['abstract', 'outline', 'balanced', 'detailed', 'raw'] as const) {
      const r = compressCode({ code: '', language: 'python', fidelity });
      expect(r.skeleton).toBe('');
      expect(r.original_tokens).toBe(0);
      expect(r.savings_percent).toBe(0);
      expect(r.importance).toEqual([]);
    }
    expect(compressCode({ code: '', fidelity: 'balanced' }).parser).toBe('line-fallback');
  });

  it('handles broken code without throwing and still extracts what parses', () => {
    const code = 'def ok(a):\n    return a\n\ndef broken(:\n    return )\n\nclass C:\n    def m(self):\n        pass\n';
    const r = compressCode({ code, language: 'python', fidelity: 'balanced' });
    expect(r.parser).toBe('tree-sitter');
    expect(r.parse_errors).toBeGreaterThan(0);
    expect(r.skeleton).toContain('def ok(a):');
    expect(r.compressed_tokens).toBeLessThanOrEqual(r.original_tokens);
    for (const lang of ['java', 'go', 'rust', 'c', 'cpp', 'typescript']) {
      const broken = compressCode({ code: 'class { fn ( ] } }} {{ int x = ;', language: lang, fidelity: 'outline' });
      expect(broken.compressed_tokens).toBeLessThanOrEqual(broken.original_tokens);
    }
  });

  it('normalises mixed line endings', () => {
    const code = 'def a(x):\r\n    return x\rdef b(y):\n    return a(y)\r\n';
    const r = compressCode({ code, language: 'python', fidelity: 'balanced' });
    expect(r.skeleton).not.toContain('\r');
    expect(r.skeleton).toContain('def a(x):');
    expect(r.skeleton).toContain('def b(y):');
    expect(r.importance[0]!.name).toBe('a');
  });

  it('parses a 5 MB file', () => {
    const unit = 'def f_%(x: int) -> int:\n    """Doc %."""\n    return g(x) + %\n\n';
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 5 * 1024 * 1024; i++) {
      const s = unit.replaceAll('%', String(i));
      parts.push(s);
      size += s.length;
    }
    const code = parts.join('');
    const t0 = performance.now();
    const a = analyzeFile({ path: 'big.py', content: code });
    const ms = performance.now() - t0;
    expect(a.parser).toBe('tree-sitter');
    expect(a.parseErrors).toBe(0);
    expect(a.units.length).toBe(parts.length);
    expect(a.units.at(-1)!.name).toBe(`f_${parts.length - 1}`);
    expect(a.skeleton.length).toBeLessThan(code.length);
    // Generous bound: the machine is shared; typical is a few seconds.
    expect(ms).toBeLessThan(100_000);
  }, 120_000);

  it('rejects binary and non-UTF-8 input with CodeInputError', () => {
    const cases = ['\u0000\u0001ELF\u0002', 'def f():\n    return "\uFFFD\uFFFD"\n', '\x7fELF\x02\x01\x01\x03\x04 garbage'];
    for (const code of cases) {
      let caught: unknown;
      try {
        compressCode({ code, language: 'python', fidelity: 'balanced' });
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(CodeInputError);
      expect((caught as CodeInputError).code).toBe('invalid_input');
      expect((caught as Error).name).toBe('CodeInputError');
    }
    const decoded = new TextDecoder().decode(new Uint8Array([0x66, 0xff, 0xfe, 0x80]));
    expect(() => compressCode({ code: decoded, fidelity: 'balanced' })).toThrow(CodeInputError);
  });

  it('accepts valid sources that contain a few literal U+FFFD characters', () => {
    const code = `def f():\n    """Replacement char demo."""\n    return "\uFFFD"\n${'x = 1\n'.repeat(200)}`;
    expect(compressCode({ code, language: 'python', fidelity: 'balanced' }).parser).toBe('tree-sitter');
  });

  it('falls back to lines for a language without a grammar and says so', () => {
    const code = "require 'json'\n\n# A greeter.\nclass Greeter\n  def greet(name)\n    puts \"hi #{name}\"\n  end\nend\n";
    const r = compressCode({ code, language: 'ruby', fidelity: 'balanced' });
    expect(r.parser).toBe('line-fallback');
    expect(r.language).toBe('ruby');
    expect(r.skeleton).toContain('class Greeter');
    expect(r.skeleton).toContain('def greet(name)');
    expect(r.skeleton).not.toContain('puts');
    expect(r.imports.map((i) => i.text)).toEqual(["require 'json'"]);
    expect(r.importance.map((i) => i.name)).toContain('Greeter.greet');
    const byName = compressCode({ code, filename: 'greeter.rb', fidelity: 'outline' });
    expect(byName.language).toBe('ruby');
    expect(byName.parser).toBe('line-fallback');
  });

  it('reports token statistics consistently, with the model tokenizer', () => {
    const code = 'function a() { return 1 + 2 + 3 + 4 + 5; }\nfunction b() { return a() * a(); }\n';
    const r = compressCode({ code, language: 'javascript', fidelity: 'balanced', model: 'gpt-4' });
    expect(r.tokenizer).toBe('cl100k_base');
    expect(r.tokens_saved).toBe(r.original_tokens - r.compressed_tokens);
    expect(r.savings_percent).toBe(Math.round((1000 * r.tokens_saved) / r.original_tokens) / 10);
    expect(r.ratio).toBeCloseTo(r.compressed_tokens / r.original_tokens, 3);
    expect(compressCode({ code, language: 'javascript', fidelity: 'balanced' }).tokenizer).toBe('o200k_base');
  });

  it('abstract lists units grouped by container', () => {
    const code = 'class A:\n    def x(self): pass\n    def y(self): pass\n\ndef top():\n    pass\n';
    const r = compressCode({ code, language: 'python', fidelity: 'abstract' });
    expect(r.skeleton).toContain('class A: x, y');
    expect(r.skeleton).toContain('functions: top');
  });

  it('abstract names kinds in correct plurals (classes, not classs)', () => {
    const py = compressCode({ code: 'class A:\n    pass\n\nclass B:\n    pass\n', language: 'python', fidelity: 'abstract' });
    expect(py.skeleton).toContain('classes: A, B');
    const ts = compressCode({ code: 'export class A {}\nexport interface I { x: number }\nexport function f() {}\n', language: 'typescript', fidelity: 'abstract' });
    expect(ts.skeleton).not.toMatch(/\b\w+ss:|classs|\bs:/);
  });

  it('results are structured-cloneable', () => {
    const r = compressCode({ code: 'def a():\n    return b()\n\ndef b():\n    return 1\n', language: 'python', fidelity: 'balanced' });
    expect(structuredClone(r)).toEqual(r);
    const a = analyzeFile({ path: 'x.py', content: 'import os\n' });
    expect(structuredClone(a)).toEqual(a);
  });
});
