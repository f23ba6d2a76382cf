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
  if (words.length <= k) {
    out.add(fnv1a(words.join(' ')));
    return out;
  }
  for (let i = 0; i + k <= words.length; i++) out.add(fnv1a(words.slice(i, i + k).join(' ')));
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

export interface DuplicateCluster {
  ids: string[];
  pairs: { a: string; b: string; similarity: number; estimate: number }[];
  max_similarity: number;
  min_similarity: number;
}

export function findDuplicates(input: DuplicateInput): { clusters: DuplicateCluster[]; candidate_pairs: number; compared_documents: number } {
  const docs = input.docs.map((d) => ({ id: d.id, set: shingles(d.text, input.shingleSize) })).filter((d) => d.set.size > 0);
  const sigs = docs.map((d) => signature(d.set));
  const buckets = new Map<string, number[]>();
  sigs.forEach((sig, i) => {
    for (let b = 0; b < BANDS; b++) {
      const key = `${b}:${Array.from(sig.subarray(b * ROWS, (b + 1) * ROWS)).join(',')}`;
      const list = buckets.get(key);
      if (list) list.push(i);
      else buckets.set(key, [i]);
    }
  });
  const candidates = new Set<number>();
  const n = docs.length;
  for (const list of buckets.values()) {
    for (let x = 0; x < list.length; x++) for (let y = x + 1; y < list.length; y++) candidates.add(list[x]! * n + list[y]!);
  }
  const parent = docs.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const pairs: { i: number; j: number; similarity: number; estimate: number }[] = [];
  for (const key of candidates) {
    const i = Math.floor(key / n);
    const j = key % n;
    const similarity = jaccard(docs[i]!.set, docs[j]!.set);
    if (similarity < input.threshold) continue;
    let agree = 0;
    for (let p = 0; p < PERMUTATIONS; p++) if (sigs[i]![p] === sigs[j]![p]) agree++;
    pairs.push({ i, j, similarity, estimate: agree / PERMUTATIONS });
    parent[find(i)] = find(j);
  }
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
      ids: members.map((i) => docs[i]!.id),
      pairs: own.map((p) => ({ a: docs[p.i]!.id, b: docs[p.j]!.id, similarity: round(p.similarity), estimate: round(p.estimate) })),
      max_similarity: round(own[0]!.similarity),
      min_similarity: round(own[own.length - 1]!.similarity),
    });
  }
  clusters.sort((a, b) => b.ids.length - a.ids.length || b.max_similarity - a.max_similarity);
  return { clusters, candidate_pairs: candidates.size, compared_documents: n };
}
