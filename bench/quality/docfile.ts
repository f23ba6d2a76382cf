// Writes a bench's measured table into docs/text-engine.md between its markers.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

export function writeDocSection(name: 'quality' | 'engine', body: string): void {
  const file = resolve(process.cwd(), 'docs/text-engine.md');
  if (!existsSync(file)) return;
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const doc = readFileSync(file, 'utf8');
  const a = doc.indexOf(start), b = doc.indexOf(end);
  if (a < 0 || b < a) return;
  writeFileSync(file, doc.slice(0, a + start.length) + '\n' + body + '\n' + doc.slice(b));
}
