// YAML sent to the text engine (workers/text/yaml.ts): values by indentation, cut as a tree. Cut as
// prose, a flags file came back at outline as help-text lines without the key they belong to, and
// its `#` comments read as Markdown headings.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { yamlUnits } from '../../workers/text/yaml.js';
import { countTokens } from '../../workers/shared/tokens.js';

const MARKER = /\[… [^\]\n]*tokens?(?: #\d{12}\.\d+)?\]/;
const LEVELS = ['outline', 'balanced', 'detailed'] as const;

/** A gcloud-style flags file: license comments, then flags with block-scalar help texts. */
const FLAGS = [
  '# Copyright 2026 Example LLC. All Rights Reserved.',
  '#',
  '# Licensed under the Apache License, Version 2.0 (the "License");',
  '# you may not use this file except in compliance with the License.',
  '',
  ...Array.from({ length: 14 }, (_, i) => [
    `flag_${i}:`,
    `  api_field: node.config.field${i}`,
    `  arg_name: flag-${i}`,
    `  type: ${i % 3 ? 'int' : 'str'}`,
    `  required: ${i % 4 === 0}`,
    '  help_text: |',
    `    Sets field ${i} of the node. Must be between ${i} and ${i * 100 + 50}; the default is ${i * 10}.`,
    `    For a list of available values for flag ${i} run:`,
    '',
    `      $ {parent_command} values list --field=${i}`,
    '',
    `    Changing it restarts the node and drops its queue ${i}.`,
    '',
  ]).flat(),
].join('\n');

const WORKFLOW = () => readFileSync(resolve(process.cwd(), 'node_modules/@fastify/ajv-compiler/node_modules/fast-uri/.github/workflows/ci.yml'), 'utf8');

interface Line { text: string; indent: number; parent: number }
/** Input lines with their parent line by indentation (a block scalar's lines belong to its key; `key:` then `- item` at one indent). */
function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let block = -1;
  let blockKey = -1;
  for (const text_ of text.split('\n')) {
    const indent = text_.length - text_.trimStart().length;
    const content = text_.trim();
    let parent = -1;
    if (content === '') {
      out.push({ text: text_, indent, parent: -2 });
      continue;
    }
    if (block >= 0 && indent > block) parent = blockKey;
    else {
      block = -1;
      for (let k = out.length - 1; k >= 0; k--) {
        const p = out[k]!;
        if (p.parent === -2 || p.text.trim().startsWith('#')) continue;
        if (p.indent < indent || (p.indent === indent && content.startsWith('- ') && /:\s*$/.test(p.text))) {
          parent = k;
          break;
        }
      }
    }
    out.push({ text: text_, indent, parent });
    if (block < 0 && /:\s*[|>][-+0-9]*\s*$/.test(text_)) {
      block = indent;
      blockKey = out.length - 1;
    }
  }
  return out;
}

describe('YAML: whole values by indentation, keys kept with what they hold', () => {
  for (const [name, doc] of [['flags file', () => FLAGS], ['GitHub workflow', WORKFLOW]] as const) {
    it(`${name}: every line is an input line, each kept line with the line it belongs to, markers name hidden keys`, async () => {
      const text = doc();
      expect(yamlUnits(text)).not.toBeNull();
      const input = linesOf(text);
      let keptBefore = -1;
      for (const fidelity of LEVELS) {
        const r = await compressText({ text, fidelity, markerIds: true });
        expect(r.savings_percent, fidelity).toBeGreaterThan(fidelity === 'detailed' ? 15 : 40);
        // Output lines map to input lines in order; a marker stands alone on its line.
        const kept = new Set<number>();
        let at = 0;
        for (const line of r.compressed_text.split('\n')) {
          if (MARKER.test(line)) {
            expect(line.trim(), fidelity).toMatch(new RegExp(`^${MARKER.source}$`));
            continue;
          }
          if (line.trim() === '') continue;
          while (at < input.length && input[at]!.text !== line) at++;
          expect(at < input.length, `${fidelity}: not an input line in order: ${line}`).toBe(true);
          kept.add(at++);
        }
        // The line a kept line belongs to is kept too: no help text without its key.
        for (const k of kept) {
          const p = input[k]!.parent;
          if (p >= 0) expect(kept.has(p), `${fidelity}: "${input[k]!.text.trim()}" without "${input[p]!.text.trim()}"`).toBe(true);
        }
        expect(kept.size, fidelity).toBeGreaterThan(keptBefore);
        keptBefore = kept.size;
        // Markers that name keys hide those keys first; every marker's count is its span's.
        const markers = [...r.compressed_text.matchAll(new RegExp(MARKER.source, 'g'))].map((m) => m[0]);
        markers.forEach((m, n) => {
          const hidden = text.slice(r.markers!.spans[2 * n], r.markers!.spans[2 * n + 1]);
          const tokens = Number(/(\d+) tokens/.exec(m)![1]);
          expect(Math.abs(countTokens(hidden) - tokens), m).toBeLessThanOrEqual(Math.max(3, tokens * 0.02));
          // A run of comments alone is `[… 40 tokens #…]`: no names, and no keys counted.
          const names = /^\[… (?:([^\]]*?): )?\d+ tokens/.exec(m)![1];
          if (names === undefined) expect(hidden.split('\n').every((l) => !l.trim() || l.trim().startsWith('#')), hidden).toBe(true);
          else if (!/^\d+ (?:items?|keys?|lines?)/.test(names)) {
            const firstKey = /^\s*(?:- )?([\w.$@/-]+):/m.exec(hidden.split('\n').filter((l) => !l.trim().startsWith('#')).join('\n'))?.[1];
            expect(names.split(/, | \+/)[0], `${m} hides ${hidden.slice(0, 60)}`).toBe(firstKey);
          }
        });
      }
    });
  }

  it('the outline of a flags file names the flags it hides, and the license comments are no headings', async () => {
    const r = await compressText({ text: FLAGS, fidelity: 'outline', markerIds: true });
    expect(r.compressed_text).toMatch(/\[… flag_\d+, flag_\d+ \+\d+ more: \d+ tokens #\d{12}\.\d+\]/);
    expect(r.compressed_text).not.toMatch(/\[… (?:Copyright|Licensed)/);
  });

  it('a quoted key keeps the colon inside it', () => {
    const text = ['"a:b": 1', '"other: key":', '  nested: true', '  more: false', 'plain:', '  x: 1', "'single: q':", '  y: 2'].join('\n');
    const keys = yamlUnits(text)!.layout.members.flat().map((c) => c.key);
    expect(keys).toEqual(['a:b', 'other: key', 'plain', 'single: q']);
  });

  it('Markdown lists under # headings, a changelog and a log of "INFO: …" lines are not YAML', () => {
    const md = ['# Project', '', '## Features', '', '- fast', '- small', '  - nested item', '- tested', '', '## Usage', '', '- run it', '- stop it'].join('\n');
    const changelog = readFileSync(resolve(process.cwd(), 'node_modules/denque/CHANGELOG.md'), 'utf8');
    const log = Array.from({ length: 40 }, (_, i) => `${i % 5 ? 'INFO' : 'WARN'}: job ${i} finished in ${i * 7} ms`).join('\n');
    const notes = ['Note: the server restarts.', 'Usage: gc compress FILE', '  Compresses FILE.', 'Options:', '  --level  the fidelity'].join('\n');
    for (const text of [md, changelog, log, notes]) expect(yamlUnits(text), text.slice(0, 40)).toBeNull();
  });
});
