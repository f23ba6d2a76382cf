// JSON Schema of every tool's input: zod-to-json-schema on zod 3 (.zod3dist, see zod.mjs) vs z.toJSONSchema on zod 4.
import { join } from 'node:path';
import { race, report } from './old.mjs';
const root = join(import.meta.dirname, '../..');
const v3 = await import(join(root, '.zod3dist/src/mcp/registry.js'));
const v4 = await import(join(root, 'dist/src/mcp/registry.js'));
const all = (m) => () => { for (const t of m.allTools()) m.inputJsonSchema(t); };
await report(`inputJsonSchema of all ${v4.allTools().length} tools`, await race(9, { zod3: all(v3), zod4: all(v4) }), 'zod3');
