/** Splits files into about `parts` runs of similar total size, in order (one pool task each). */
export function batchesBySize<T extends { content: string }>(files: readonly T[], parts: number): T[][] {
  const target = Math.max(1, Math.ceil(files.reduce((s, f) => s + f.content.length, 0) / parts));
  const out: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const file of files) {
    current.push(file);
    size += file.content.length;
    if (size >= target) {
      out.push(current);
      current = [];
      size = 0;
    }
  }
  if (current.length) out.push(current);
  return out;
}
