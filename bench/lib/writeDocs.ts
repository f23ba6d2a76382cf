// Benches print their results; they write a tracked file only when asked (`--write-docs`), so running one
// never leaves the checkout changed (test/docs/bench-tree.test.ts).
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

export const WRITE_DOCS = process.argv.includes('--write-docs');

/** Writes `text` to `file` under --write-docs; otherwise says how to. Returns whether it wrote. */
export function writeTrackedFile(file: string, text: string): boolean {
  if (!WRITE_DOCS) {
    console.error(`(${relative(process.cwd(), file)} not rewritten: pass --write-docs to write it)`);
    return false;
  }
  writeFileSync(file, text);
  console.error(`written: ${relative(process.cwd(), file)}`);
  return true;
}
