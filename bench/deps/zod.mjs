// zod 3 vs 4 on the MCP tools' own input schemas, same run: the registry built with zod 3 (a copy of
// dist/ made before the move, its 'zod' imports pointed at the old package) against the current dist/.
// Inputs are made from each tool's JSON Schema (required fields, typical values) plus one bad input per
// tool; both versions must accept and reject the same ones.
//   cp -r dist .zod3dist   (on the zod 3 build; then rewrite its imports:)
//   grep -rl "from 'zod'" .zod3dist | xargs sed -i "s#from 'zod'#from '$OLD_DEPS/node_modules/zod3/index.js'#"
//   node bench/deps/zod.mjs
import { join } from 'node:path';
import { race, report } from './old.mjs';

const root = join(import.meta.dirname, '../..');
const v3 = await import(join(root, '.zod3dist/src/mcp/registry.js'));
const v4 = await import(join(root, 'dist/src/mcp/registry.js'));

function sample(s, depth = 0) {
  if (!s || depth > 6) return null;
  if (s.default !== undefined) return s.default;
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  if (s.anyOf) return sample(s.anyOf.find((x) => x.type !== 'null') ?? s.anyOf[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'string') {
    if (s.format === 'uuid' || /\[1-8\]/.test(s.pattern ?? '')) return '6f1c2a8e-3b4d-4e5f-8a6b-7c8d9e0f1a2b';
    if (s.format === 'uri' || s.format === 'url') return 'https://example.com/a';
    if (s.format === 'email') return 'a@example.com';
    return 'The quick brown fox jumps over the lazy dog. '.repeat(20).slice(0, Math.min(s.maxLength ?? 900, 900)).padEnd(s.minLength ?? 0, 'x');
  }
  if (type === 'integer' || type === 'number') return Math.max(s.minimum ?? 1, Math.min(s.maximum ?? 10, 10));
  if (type === 'boolean') return true;
  if (type === 'array') return Array.from({ length: Math.max(s.minItems ?? 1, 1) }, () => sample(s.items, depth + 1));
  if (type === 'object' || s.properties) {
    const out = {};
    for (const k of s.required ?? []) out[k] = sample(s.properties?.[k], depth + 1);
    return out;
  }
  return 'x';
}

const schemas = new Map(v4.toolList('all').map((t) => [t.name, t.inputSchema]));
const cases = [];
for (const tool of v4.allTools()) {
  const good = sample(schemas.get(tool.name)) ?? {};
  cases.push({ name: tool.name, input: good }, { name: tool.name, input: { ...good, __not_a_field: [1, 2, 3] } });
}
const get3 = (n) => v3.getTool(n).input, get4 = (n) => v4.getTool(n).input;
let agree = 0, ok3 = 0, ok4 = 0;
const differ = [];
for (const c of cases) {
  const a = get3(c.name).safeParse(c.input).success, b = get4(c.name).safeParse(c.input).success;
  ok3 += a; ok4 += b;
  if (a === b) agree++; else differ.push(`${c.name} (zod3 ${a}, zod4 ${b})`);
}
console.log(`${cases.length} inputs over ${schemas.size} tools: accepted zod3 ${ok3}, zod4 ${ok4}; same decision on ${agree}${differ.length ? `; differ: ${differ.join(', ')}` : ''}`);
const run = (get) => () => { for (let i = 0; i < 20; i++) for (const c of cases) get(c.name).safeParse(c.input); };
await report(`safeParse of ${cases.length} inputs ×20`, await race(15, { zod3: run(get3), zod4: run(get4) }), 'zod3');
const good = cases.filter((_, i) => i % 2 === 0);
const runGood = (get) => () => { for (let i = 0; i < 20; i++) for (const c of good) get(c.name).safeParse(c.input); };
await report(`safeParse of the ${good.length} made-valid inputs ×20`, await race(15, { zod3: runGood(get3), zod4: runGood(get4) }), 'zod3');
