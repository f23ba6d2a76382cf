// gpt-tokenizer 3.4 vs 4.0 on the same texts (this repo's docs and sources, plus multilingual and
// special-token text): token ids and counts must be identical; counting time, interleaved rounds.
// node bench/deps/tokenizer.mjs
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import o200k4 from 'gpt-tokenizer/encoding/o200k_base';
import cl100k4 from 'gpt-tokenizer/encoding/cl100k_base';
import * as C4 from 'gpt-tokenizer/encodingParams/constants';
import { importOld, race, report } from './old.mjs';

const o200k3 = (await importOld('gpt-tokenizer3/esm/encoding/o200k_base.js')).default;
const cl100k3 = (await importOld('gpt-tokenizer3/esm/encoding/cl100k_base.js')).default;
const C3 = await importOld('gpt-tokenizer3/esm/encodingParams/constants.js');

const files = (dir) => readdirSync(dir, { recursive: true }).filter((f) => /\.(md|ts)$/.test(f)).map((f) => readFileSync(join(dir, f), 'utf8'));
const texts = [
  ...files('docs'), ...files('src/domain'), ...files('workers/shared'),
  'Grüße aus Köln — 東京は雨です。 Привет, мир! مرحبا 👩‍💻🚀 ' .repeat(200),
  'x'.repeat(5000) + ' ' + '\t\n'.repeat(300) + '1234567890'.repeat(300),
];
const plain = { disallowedSpecial: new Set() }; // special-token strings in docs count as text, as ours do
const special = 'before <|endoftext|> after <|fim_prefix|>';
let chars = 0, tokens = 0, diffs = 0;
for (const [name, a, b] of [['o200k_base', o200k3, o200k4], ['cl100k_base', cl100k3, cl100k4]]) {
  for (const t of texts) {
    const x = a.encode(t, plain), y = b.encode(t, plain);
    chars += t.length; tokens += x.length;
    if (x.length !== y.length || x.some((v, i) => v !== y[i])) { diffs++; console.log(`${name}: ids differ on a text of ${t.length} chars (${x.length} vs ${y.length})`); }
    if (a.countTokens(t, plain) !== b.countTokens(t, plain)) diffs++;
  }
  const sp = (enc) => { try { return enc.countTokens(special); } catch (e) { return `throws: ${e.message.slice(0, 60)}`; } };
  console.log(`${name} special-token text: 3.4 ${sp(a)} | 4.0 ${sp(b)}`);
}
for (const k of ['O200K_TOKEN_SPLIT_REGEX', 'CL100K_TOKEN_SPLIT_REGEX']) console.log(`${k} identical: ${String(C3[k]) === String(C4[k])}`);
console.log(`${texts.length} texts × 2 encodings, ${chars} chars, ${tokens} tokens: ${diffs} differences`);
const count = (enc) => () => texts.forEach((t) => enc.countTokens(t, plain));
const medians = await race(9, { v3: count(o200k3), v4: count(o200k4) });
await report('countTokens o200k over all texts', medians, 'v3');
const enc = (e) => () => texts.forEach((t) => e.encode(t, plain));
await report('encode cl100k over all texts', await race(9, { v3: enc(cl100k3), v4: enc(cl100k4) }), 'v3');
