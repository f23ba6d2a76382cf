// Where each thread's byte-pair rank tables come from, cheapest first: the buffers the thread was handed
// at start (one SharedArrayBuffer copy for the whole process), the files `npm run build` writes
// (dist/data/bpe/), or, failing both, the tokenizer library's rank list (its modules are then dropped).
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BpeTable, buildBpeTable, type BpeTableBuffers } from './bpeTable.js';
import type { TokenizerName } from './tokenizerName.js';

export const TOKENIZERS: readonly TokenizerName[] = ['o200k_base', 'cl100k_base'];

/** dist/data/bpe: beside the compiled workers (dist/workers/shared → dist/data/bpe). */
const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'data', 'bpe');
const MAGIC = 0x31455042; // 'BPE1'

const tables = new Map<TokenizerName, BpeTable>();
let handed: Partial<Record<TokenizerName, BpeTableBuffers>> = {};

/** The rank table of an encoding, loaded on first use in this thread. */
export function tokenTable(name: TokenizerName): BpeTable {
  let table = tables.get(name);
  if (!table) {
    table = new BpeTable(handed[name] ?? readTableFile(name, false) ?? fromLibrary(name, false));
    tables.set(name, table);
  }
  return table;
}

/** Tables handed to this thread at start (workerData of the pool's threads). */
export function useTokenTables(buffers: Partial<Record<TokenizerName, BpeTableBuffers>> | undefined): void {
  if (buffers) handed = buffers;
}

let shared: Record<TokenizerName, BpeTableBuffers> | null = null;

/** Every encoding's tables in SharedArrayBuffers, made once per process, to hand to the threads it starts. */
export function sharedTokenTables(): Record<TokenizerName, BpeTableBuffers> {
  shared ??= Object.fromEntries(TOKENIZERS.map((n) => [n, readTableFile(n, true) ?? fromLibrary(n, true)])) as Record<TokenizerName, BpeTableBuffers>;
  handed = shared;
  return shared;
}

function readTableFile(name: TokenizerName, asShared: boolean): BpeTableBuffers | null {
  const file = join(DATA_DIR, `${name}.bin`);
  if (!existsSync(file)) return null;
  const data = readFileSync(file);
  const head = new DataView(data.buffer, data.byteOffset, 16);
  if (head.getUint32(0, true) !== MAGIC) return null;
  const [entries, bytesLength, slotsLength] = [head.getUint32(4, true), head.getUint32(8, true), head.getUint32(12, true)];
  const copy = (from: number, length: number) => {
    const out = asShared ? new SharedArrayBuffer(length) : new ArrayBuffer(length);
    new Uint8Array(out).set(data.subarray(from, from + length));
    return out;
  };
  const offsetsAt = 16;
  const slotsAt = offsetsAt + 4 * (entries + 1);
  const bytesAt = slotsAt + 4 * slotsLength;
  return { offsets: copy(offsetsAt, 4 * (entries + 1)), slots: copy(slotsAt, 4 * slotsLength), bytes: copy(bytesAt, bytesLength) };
}

/** Builds the tables from the tokenizer library's rank list; its module is dropped after. */
function fromLibrary(name: TokenizerName, asShared: boolean): BpeTableBuffers {
  const require = createRequire(import.meta.url);
  const id = require.resolve(`gpt-tokenizer/bpeRanks/${name}`);
  const mod = require(id) as { default?: (string | number[])[] } | (string | number[])[];
  const ranks = Array.isArray(mod) ? mod : mod.default!;
  const buffers = buildBpeTable(ranks, asShared);
  delete require.cache[id];
  return buffers;
}

/** Writes each encoding's tables as one file (the build's last step: scripts/build.mjs). */
export function writeTokenTableFiles(dir = DATA_DIR): string[] {
  mkdirSync(dir, { recursive: true });
  return TOKENIZERS.map((name) => {
    const t = fromLibrary(name, false);
    const entries = new Uint32Array(t.offsets).length - 1;
    const slots = new Int32Array(t.slots).length;
    const head = new Uint32Array([MAGIC, entries, t.bytes.byteLength, slots]);
    const file = join(dir, `${name}.bin`);
    writeFileSync(file, Buffer.concat([new Uint8Array(head.buffer), new Uint8Array(t.offsets), new Uint8Array(t.slots), new Uint8Array(t.bytes)]));
    return file;
  });
}
