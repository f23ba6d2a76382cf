// Compiled knowledge: a project's Knowledge Hub items compiled into one index (per item: outline,
// summary, key terms by TF-IDF across items, related items by embedding centroid), and lint rules
// over the same chunks (empty items, missing headings, oversized chunks, duplicate and near-duplicate
// passages across items).
import { bm25Idf } from '../shared/bm25.js';
import { terms } from '../text/terms.js';

export interface CompileChunk {
  item: number;
  heading: string | null;
  text: string;
  tokens: number;
}

export interface CompileInput {
  items: { item_id: string; name: string; chunk_count: number; headings: string[] }[];
  chunks: CompileChunk[];
  /** Row-major chunk embeddings (dims each, unit vectors). */
  vectors: Float32Array;
  dims: number;
}

export interface CompiledItem {
  item_id: string;
  name: string;
  summary: string;
  outline: string[];
  key_terms: string[];
  tokens: number;
  related: { item_id: string; name: string; similarity: number }[];
}

const RELATED_MIN = 0.6;
const NEAR_DUPLICATE = 0.97;
const OVERSIZED_TOKENS = 1500;

function firstSentence(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  const s = /^.*?[.!?](\s|$)/.exec(t)?.[0]?.trim() ?? t;
  return s.length > 200 ? `${s.slice(0, 197)}...` : s;
}

function centroids(input: CompileInput): Float32Array[] {
  const { dims } = input;
  const out = input.items.map(() => new Float32Array(dims));
  input.chunks.forEach((c, j) => {
    const o = out[c.item]!;
    for (let k = 0; k < dims; k++) o[k]! += input.vectors[j * dims + k]!;
  });
  for (const v of out) {
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n) || 1;
    for (let k = 0; k < dims; k++) v[k]! /= n;
  }
  return out;
}

function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, dims: number): number {
  let s = 0;
  for (let k = 0; k < dims; k++) s += a[ao + k]! * b[bo + k]!;
  return s;
}

export function compileKnowledge(input: CompileInput): { items: CompiledItem[]; markdown: string } {
  const n = input.items.length;
  const tf = input.items.map(() => new Map<string, number>());
  const df = new Map<string, number>();
  input.chunks.forEach((c) => {
    for (const t of terms(`${c.heading ?? ''} ${c.text}`)) tf[c.item]!.set(t, (tf[c.item]!.get(t) ?? 0) + 1);
  });
  for (const m of tf) for (const t of m.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const cents = input.dims > 0 ? centroids(input) : [];
  const items: CompiledItem[] = input.items.map((it, i) => {
    const mine = input.chunks.filter((c) => c.item === i);
    const outline = [...new Set(it.headings.map((h) => h.trim()).filter(Boolean))].slice(0, 30);
    const keyTerms = [...tf[i]!.entries()]
      .map(([t, f]) => [t, f * bm25Idf(n, df.get(t)!)] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 8)
      .map(([t]) => t);
    const related = cents.length
      ? input.items
          .map((o, j) => ({ item_id: o.item_id, name: o.name, similarity: j === i ? -1 : Math.round(dot(cents[i]!, 0, cents[j]!, 0, input.dims) * 1000) / 1000 }))
          .filter((r) => r.similarity >= RELATED_MIN)
          .sort((a, b) => b.similarity - a.similarity)
          .slice(0, 3)
      : [];
    return {
      item_id: it.item_id,
      name: it.name,
      summary: mine.length ? firstSentence(mine[0]!.text) : '',
      outline,
      key_terms: keyTerms,
      tokens: mine.reduce((s, c) => s + c.tokens, 0),
      related,
    };
  });
  const lines = ['# Knowledge index', '', `${n} items.`];
  for (const it of [...items].sort((a, b) => a.name.localeCompare(b.name))) {
    lines.push('', `## ${it.name}`, '', `item_id: ${it.item_id} · ${it.tokens} tokens`);
    if (it.summary) lines.push('', it.summary);
    if (it.outline.length) lines.push('', `Sections: ${it.outline.join('; ')}`);
    if (it.key_terms.length) lines.push(`Key terms: ${it.key_terms.join(', ')}`);
    if (it.related.length) lines.push(`Related: ${it.related.map((r) => `${r.name} (${r.similarity})`).join('; ')}`);
  }
  return { items, markdown: lines.join('\n') };
}

export interface LintFinding {
  rule: 'empty_item' | 'no_headings' | 'oversized_chunk' | 'duplicate_passage' | 'near_duplicate_passage';
  severity: 'warning' | 'info';
  item_id: string;
  other_item_id: string | null;
  message: string;
}

export function lintKnowledge(input: CompileInput): LintFinding[] {
  const out: LintFinding[] = [];
  const { items, chunks, dims } = input;
  items.forEach((it, i) => {
    const mine = chunks.filter((c) => c.item === i);
    if (it.chunk_count === 0 || mine.length === 0) out.push({ rule: 'empty_item', severity: 'warning', item_id: it.item_id, other_item_id: null, message: `"${it.name}" has no indexed content` });
    else if (it.headings.length === 0 && mine.length > 1) {
      out.push({ rule: 'no_headings', severity: 'info', item_id: it.item_id, other_item_id: null, message: `"${it.name}" has ${mine.length} chunks and no headings; headings make its chunks addressable` });
    }
    for (const c of mine) {
      if (c.tokens > OVERSIZED_TOKENS) {
        out.push({ rule: 'oversized_chunk', severity: 'info', item_id: it.item_id, other_item_id: null, message: `"${it.name}"${c.heading ? ` § ${c.heading}` : ''} is one chunk of ${c.tokens} tokens` });
      }
    }
  });
  // Duplicates across items: the same normalised text, or embeddings nearly identical.
  const seen = new Map<string, number>();
  const reported = new Set<string>();
  chunks.forEach((c, j) => {
    const norm = c.text.toLowerCase().replace(/\s+/g, ' ').trim();
    if (norm.length < 40) return;
    const prev = seen.get(norm);
    if (prev !== undefined && chunks[prev]!.item !== c.item) {
      const key = `${chunks[prev]!.item}:${c.item}`;
      if (!reported.has(key)) {
        reported.add(key);
        out.push({ rule: 'duplicate_passage', severity: 'warning', item_id: items[c.item]!.item_id, other_item_id: items[chunks[prev]!.item]!.item_id, message: `"${items[c.item]!.name}" repeats a passage of "${items[chunks[prev]!.item]!.name}"` });
      }
    } else if (prev === undefined) seen.set(norm, j);
  });
  if (dims > 0 && chunks.length <= 5000) {
    for (let a = 0; a < chunks.length; a++) {
      for (let b = a + 1; b < chunks.length; b++) {
        if (chunks[a]!.item === chunks[b]!.item) continue;
        const key = `${Math.min(chunks[a]!.item, chunks[b]!.item)}:${Math.max(chunks[a]!.item, chunks[b]!.item)}`;
        if (reported.has(key) || reported.has(`${chunks[b]!.item}:${chunks[a]!.item}`) || reported.has(`${chunks[a]!.item}:${chunks[b]!.item}`)) continue;
        if (dot(input.vectors, a * dims, input.vectors, b * dims, dims) >= NEAR_DUPLICATE) {
          reported.add(key);
          const ia = items[chunks[a]!.item]!;
          const ib = items[chunks[b]!.item]!;
          out.push({ rule: 'near_duplicate_passage', severity: 'info', item_id: ib.item_id, other_item_id: ia.item_id, message: `"${ib.name}" has a passage nearly identical to one in "${ia.name}"` });
        }
      }
    }
  }
  return out;
}
