// The previous majors, installed beside the repo under npm aliases (see docs/dependencies.md):
//   npm install --prefix $OLD_DEPS zod3@npm:zod@3.25.76 zod-to-json-schema@3.25.2 gpt-tokenizer3@npm:gpt-tokenizer@3.4.0 \
//     ioredis5@npm:ioredis@5.11.1 toon2@npm:@toon-format/toon@2.3.1 typescript59@npm:typescript@5.9.3
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const root = process.env.OLD_DEPS ?? '/tmp/depbench';
export const oldPath = (rel) => join(root, 'node_modules', rel);
export const importOld = (rel) => import(pathToFileURL(oldPath(rel)).href);

/** Interleaved rounds so load drift hits both sides alike; returns the median ms per round of each. */
export async function race(rounds, sides) {
  const times = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(sides)) {
      const t = process.hrtime.bigint();
      await fn();
      times[name].push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

export async function report(label, medians, baseline) {
  const { execSync } = await import('node:child_process');
  const load = execSync('uptime').toString().trim().replace(/.*load average: /, '');
  const base = medians[baseline];
  for (const [k, v] of Object.entries(medians)) console.log(`${label} ${k}: median ${v.toFixed(2)} ms/round, ratio ${(v / base).toFixed(3)} vs ${baseline}`);
  console.log(`load average: ${load}`);
}
