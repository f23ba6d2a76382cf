// A byte-pair encoding's rank table in three flat buffers: every token's bytes end to end, where each
// token's bytes start (by rank), and an open-addressing hash table of ranks keyed by those bytes. About
// 4 MB for o200k_base where the tokenizer library's maps hold about 60 MB in every thread; the buffers
// can be SharedArrayBuffers, read by every thread of the process from one copy (docs/resident-memory.md).

export interface BpeTableBuffers {
  /** Every token's bytes, in rank order. */
  bytes: ArrayBufferLike;
  /** Uint32: where rank r's bytes start; entry count + 1 entries (the last is the total length). */
  offsets: ArrayBufferLike;
  /** Int32 hash table (a power of two long): a rank, or -1 for an empty slot. */
  slots: ArrayBufferLike;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export class BpeTable {
  private readonly bytes: Uint8Array;
  private readonly offsets: Uint32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(readonly buffers: BpeTableBuffers) {
    this.bytes = new Uint8Array(buffers.bytes);
    this.offsets = new Uint32Array(buffers.offsets);
    this.slots = new Int32Array(buffers.slots);
    this.mask = this.slots.length - 1;
  }

  get size(): number {
    return this.offsets.length - 1;
  }

  /** The rank of bytes [start, end) of `source`, or undefined when they are not a token. */
  rankOfBytes(source: Uint8Array, start: number, end: number): number | undefined {
    let h = FNV_OFFSET;
    for (let i = start; i < end; i++) h = Math.imul(h ^ source[i]!, FNV_PRIME);
    const length = end - start;
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const rank = this.slots[slot]!;
      if (rank < 0) return undefined;
      const at = this.offsets[rank]!;
      if (this.offsets[rank + 1]! - at !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (this.bytes[at + i] !== source[start + i]) {
          same = false;
          break;
        }
      }
      if (same) return rank;
    }
  }

  /**
   * The rank of characters [start, end) of an ASCII string (one byte each), without encoding it. The probe
   * loop repeats rankOfBytes's on purpose, so the lookup on counting's hot path reads characters directly
   * instead of through a per-byte callback (not measured against one).
   */
  rankOfAscii(source: string, start: number, end: number): number | undefined {
    let h = FNV_OFFSET;
    for (let i = start; i < end; i++) h = Math.imul(h ^ source.charCodeAt(i), FNV_PRIME);
    const length = end - start;
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const rank = this.slots[slot]!;
      if (rank < 0) return undefined;
      const at = this.offsets[rank]!;
      if (this.offsets[rank + 1]! - at !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (this.bytes[at + i] !== source.charCodeAt(start + i)) {
          same = false;
          break;
        }
      }
      if (same) return rank;
    }
  }
}

/**
 * Lays out a rank list (index = rank; a string token as its UTF-8 bytes, or its bytes as numbers, as the
 * tokenizer library ships them) into table buffers, shared between threads when `shared`.
 */
export function buildBpeTable(ranks: readonly (string | readonly number[])[], shared: boolean): BpeTableBuffers {
  const utf8 = new TextEncoder();
  const encoded = ranks.map((t) => (typeof t === 'string' ? utf8.encode(t) : Uint8Array.from(t)));
  const total = encoded.reduce((n, b) => n + b.length, 0);
  const alloc = (n: number) => (shared ? new SharedArrayBuffer(n) : new ArrayBuffer(n));
  const buffers: BpeTableBuffers = { bytes: alloc(total), offsets: alloc(4 * (ranks.length + 1)), slots: alloc(4 * slotCount(ranks.length)) };
  const bytes = new Uint8Array(buffers.bytes);
  const offsets = new Uint32Array(buffers.offsets);
  const slots = new Int32Array(buffers.slots).fill(-1);
  const mask = slots.length - 1;
  let at = 0;
  encoded.forEach((b, rank) => {
    offsets[rank] = at;
    bytes.set(b, at);
    at += b.length;
    let h = FNV_OFFSET;
    for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i]!, FNV_PRIME);
    let slot = h & mask;
    while (slots[slot]! >= 0) slot = (slot + 1) & mask;
    slots[slot] = rank;
  });
  offsets[ranks.length] = at;
  return buffers;
}

/** A power of two at least 2.5 times the entries: short probe runs. */
function slotCount(entries: number): number {
  let n = 1;
  while (n < entries * 2.5) n <<= 1;
  return n;
}
