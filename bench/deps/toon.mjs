// @toon-format/toon 2.3 vs 4.4 on the same values: encode time and the tokens of each output (o200k).
// node bench/deps/toon.mjs
import { encode as encode4 } from '@toon-format/toon';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { importOld, race, report } from './old.mjs';

const { encode: encode2 } = await importOld('toon2/dist/index.mjs');
const n = 500;
const values = {
  'flat table': { users: Array.from({ length: n }, (_, i) => ({ id: i, name: `user${i}`, role: i % 3 ? 'user' : 'admin', active: i % 2 === 0 })) },
  'nested records': { rows: Array.from({ length: n }, (_, i) => ({ id: i, temp: { min: i, max: i + 5 }, geo: { lat: i / 10, lon: -i / 10 } })) },
  'keyed map': { byId: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, { n: i, v: `v${i}` }])) },
  'irregular tree': { a: Array.from({ length: n }, (_, i) => (i % 2 ? { x: i, y: [i, i + 1] } : { z: `s${i}` })) },
};
for (const [name, value] of Object.entries(values)) {
  const json = countTokens(JSON.stringify(value));
  const t2 = countTokens(encode2(value)), t4 = countTokens(encode4(value));
  console.log(`${name}: tokens JSON ${json}, TOON 2.3 ${t2}, TOON 4.4 ${t4} (4.4/2.3 ${(t4 / t2).toFixed(3)}), identical output: ${encode2(value) === encode4(value)}`);
}
const all = Object.values(values);
const medians = await race(21, { v2: () => all.forEach((v) => encode2(v)), v4: () => all.forEach((v) => encode4(v)) });
await report('toon encode of the four values', medians, 'v2');
