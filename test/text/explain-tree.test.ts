// explain_compression_decision on JSON and YAML: each section is an opened value and is named by its
// path from the root (`json $.domains[3].commands (Network)`). Before, such a section read
// `code at character 48213: "commands": [ { "name": …`, which named nothing a reader could find.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explainCompression } from '../../workers/text/explain.js';

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The value at a path the engine printed (`$`, `.key`, `["key"]`, `[3]`), or undefined. */
function at(root: unknown, path: string): unknown {
  let v = root;
  for (const m of path.slice(1).matchAll(/\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    if (v === null || typeof v !== 'object') return undefined;
    const key = m[1] ?? (m[2] !== undefined ? Number(m[2]) : JSON.parse(m[3]!));
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

describe('explain_compression_decision names the sections of structured text by their path', () => {
  it('JSON: every section is the value at its path, and a named element carries its name', async () => {
    const text = readFileSync(resolve(process.cwd(), 'node_modules/devtools-protocol/json/js_protocol.json'), 'utf8');
    const doc = JSON.parse(text) as { domains: { domain: string }[] };
    const r = await explainCompression({ text, fidelity: 'outline', max_units_per_section: 3 });
    expect(r.sections.length).toBeGreaterThan(10);
    let named = 0;
    for (const s of r.sections) {
      const m = /^json (\$\S*)(?: \((.+)\))?$/.exec(s.section);
      expect(m, s.section).not.toBeNull();
      const value = at(doc, m![1]!);
      expect(value, s.section).toBeDefined();
      // The section's units are parts of that value: each unit's text is in the value's own text.
      const own = squash(JSON.stringify(value, null, 2));
      for (const u of s.units) {
        const part = squash(u.text.replace(/…$/, '')).replace(/^"[^"]*": /, '').replace(/,$/, '');
        expect(own.includes(part.slice(0, 60)) || own.includes(part.slice(-60)), `${s.section}: ${u.text}`).toBe(true);
      }
      // The name is that of the last array element on the path: one of its members' values.
      const element = /^(.*\[\d+\])/.exec(m![1]!);
      if (element && m![2]) {
        expect(Object.values(at(doc, element[1]!) as object), s.section).toContain(m![2]);
        named++;
      }
      if (/^\$\.domains\[\d+\]$/.test(m![1]!)) expect(m![2], s.section).toBe((value as { domain: string }).domain);
    }
    expect(named).toBeGreaterThan(5);
    expect(r.sections.some((s) => s.decision === 'elided' || s.decision === 'partly_kept')).toBe(true);
  });

  it('YAML: each path step is a key of the line above it, in order', async () => {
    const text = readFileSync(resolve(process.cwd(), 'node_modules/@fastify/ajv-compiler/node_modules/fast-uri/.github/workflows/ci.yml'), 'utf8');
    const r = await explainCompression({ text, fidelity: 'outline', max_units_per_section: 3 });
    const paths = r.sections.map((s) => s.section);
    expect(paths[0]).toBe('yaml $');
    expect(paths).toContain('yaml $.jobs');
    const lines = text.split('\n');
    for (const p of paths) {
      expect(p).toMatch(/^yaml \$/);
      // Walk the keys down the file: each one is found below the previous one, further indented.
      let from = 0;
      let indent = -1;
      for (const step of p.slice(6).matchAll(/\.([\w$-]+)|\[(\d+)\]/g)) {
        if (step[2] !== undefined) continue;
        const k = lines.findIndex((l, i) => i >= from && new RegExp(`^\\s*(?:- )?${step[1]!.replace(/[$-]/g, '\\$&')}:`).test(l) && l.search(/\S/) > indent);
        expect(k, `${p}: ${step[1]} is not a key below the previous step`).not.toBe(-1);
        from = k + 1;
        indent = lines[k]!.search(/\S/);
      }
    }
  });
});
