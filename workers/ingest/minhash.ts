// Near-duplicate clusters: word shingles, MinHash signatures, LSH banding for candidate pairs, and
// the exact Jaccard similarity of the candidates' shingle sets (what is reported).
export const PERMUTATIONS = 128;
/** 64 bands of 2 rows: a pair at Jaccard 0.3 becomes a candidate with probability above 0.99. */
const BANDS = 64;
const ROWS = PERMUTATIONS / BANDS;

const WORD = /[\p{L}\p{N}]+/gu;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's finaliser: a cheap, well-mixed 32-bit permutation. */
function mix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

const SEEDS = Uint32Array.from({ length: PERMUTATIONS }, (_, i) => mix(0x9e3779b9 + i * 0x632be5ab));

/** Hashes of the text's k-word shingles (a text shorter than k words is one shingle). */
export function shingles(text: string, k: number): Set<number> {
  const words = text.toLowerCase().match(WORD) ?? [];
  const out = new Set<number>();
  if (words.length === 0) return out;
  // Words are hashed once; a shingle's hash combines its words' hashes (no string per shingle).
  const wh = Uint32Array.from(words, fnv1a);
  const span = Math.min(k, wh.length);
  for (let i = 0; i + span <= wh.length; i++) {
    let h = 0x9747b28c;
    for (let j = 0; j < span; j++) h = mix((h ^ wh[i + j]!) + j);
    out.add(h);
  }
  return out;
}

export function signature(set: Set<number>): Uint32Array {
  const sig = new Uint32Array(PERMUTATIONS).fill(0xffffffff);
  for (const h of set) {
    for (let p = 0; p < PERMUTATIONS; p++) {
      const v = mix(h ^ SEEDS[p]!);
      if (v < sig[p]!) sig[p] = v;
    }
  }
  return sig;
}

export function jaccard(a: Set<number>, b: Set<number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const h of small) if (large.has(h)) inter++;
  return inter / (a.size + b.size - inter);
}

export interface DuplicateInput {
  docs: { id: string; text: string }[];
  threshold: number;
  shingleSize: number;
}

/** Pairs listed per cluster (the most similar first); pair_count has them all. */
export const MAX_PAIRS_LISTED = 100;

export interface DuplicateCluster {
  ids: string[];
  pair_count: number;
  pairs: { a: string; b: string; similarity: number; estimate: number }[];
  max_similarity: number;
  min_similarity: number;
}

/** Above this many shingles in either document the pair's MinHash estimate stands in for the exact Jaccard (cost). */
export const EXACT_JACCARD_MAX_SHINGLES = 20_000;

export function findDuplicates(input: DuplicateInput): { clusters: DuplicateCluster[]; candidate_pairs: number; compared_documents: number } {
  // Identical texts collapse to one representative first: many copies of one text cost one signature.
  const all: { id: string; set: Set<number> }[] = [];
  const firstOf = new Map<string, number>();
  const reps: number[] = [];
  const pairs: { i: number; j: number; similarity: number; estimate: number }[] = [];
  for (const d of input.docs) {
    const first = firstOf.get(d.text);
    if (first !== undefined) {
      pairs.push({ i: first, j: all.length, similarity: 1, estimate: 1 });
      all.push({ id: d.id, set: all[first]!.set });
      continue;
    }
    const set = shingles(d.text, input.shingleSize);
    if (set.size === 0) continue;
    firstOf.set(d.text, all.length);
    reps.push(all.length);
    all.push({ id: d.id, set });
  }
  const sigs = new Map(reps.map((i) => [i, signature(all[i]!.set)]));
  const buckets = new Map<string, number[]>();
  for (const i of reps) {
    const sig = sigs.get(i)!;
    for (let b = 0; b < BANDS; b++) {
      const key = `${b}:${Array.from(sig.subarray(b * ROWS, (b + 1) * ROWS)).join(',')}`;
      const list = buckets.get(key);
      if (list) list.push(i);
      else buckets.set(key, [i]);
    }
  }
  const n = all.length;
  const candidates = new Set<number>();
  for (const list of buckets.values()) {
    for (let x = 0; x < list.length; x++) for (let y = x + 1; y < list.length; y++) candidates.add(list[x]! * n + list[y]!);
  }
  for (const key of candidates) {
    const i = Math.floor(key / n);
    const j = key % n;
    let agree = 0;
    const si = sigs.get(i)!;
    const sj = sigs.get(j)!;
    for (let p = 0; p < PERMUTATIONS; p++) if (si[p] === sj[p]) agree++;
    const estimate = agree / PERMUTATIONS;
    const big = all[i]!.set.size > EXACT_JACCARD_MAX_SHINGLES || all[j]!.set.size > EXACT_JACCARD_MAX_SHINGLES;
    const similarity = big ? estimate : jaccard(all[i]!.set, all[j]!.set);
    if (similarity >= input.threshold) pairs.push({ i, j, similarity, estimate });
  }
  const parent = all.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (const p of pairs) parent[find(p.i)] = find(p.j);
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    const g = groups.get(r);
    if (g) g.push(i);
    else groups.set(r, [i]);
  }
  const round = (x: number) => Math.round(x * 10000) / 10000;
  const clusters: DuplicateCluster[] = [];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const set = new Set(members);
    const own = pairs.filter((p) => set.has(p.i)).sort((a, b) => b.similarity - a.similarity);
    clusters.push({
      ids: members.map((i) => all[i]!.id),
      pair_count: own.length,
      pairs: own.slice(0, MAX_PAIRS_LISTED).map((p) => ({ a: all[p.i]!.id, b: all[p.j]!.id, similarity: round(p.similarity), estimate: round(p.estimate) })),
      max_similarity: round(own[0]!.similarity),
      min_similarity: round(own[own.length - 1]!.similarity),
    });
  }
  clusters.sort((a, b) => b.ids.length - a.ids.length || b.max_similarity - a.max_similarity);
  return { clusters, candidate_pairs: candidates.size, compared_documents: n };
}
