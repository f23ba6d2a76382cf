// Manifest-driven ONNX embedder: tokenizer kind + pooling kind. The same runner serves the
// shipped static model (graph pools itself) and sentence-transformer exports (mean/CLS pooling
// over last_hidden_state with the attention mask).
import { resolve } from 'node:path';
import { loadManifest, type Manifest } from './manifest.js';
import { createSession, ort, type Session } from './session.js';
import type { Encoding, Tokenizer } from './tokenizer.js';
import { loadTokenizer } from './tokenizer-load.js';
import type { Embedder } from './types.js';

/** Batches are cut by size and by padded token count so one long text does not pad a whole batch. */
const MAX_BATCH = 512;
const MAX_BATCH_TOKENS = 32_768;

export function l2normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  if (n > 0) {
    const s = 1 / Math.sqrt(n);
    for (let i = 0; i < v.length; i++) v[i]! *= s;
  }
  return v;
}

export class OnnxEmbedder implements Embedder {
  private constructor(
    readonly manifest: Manifest,
    readonly tokenizer: Tokenizer,
    private readonly session: Session,
    private readonly outputName: string,
    public dims: number,
  ) {}

  get modelId(): string {
    return this.manifest.id;
  }

  static async load(dir: string): Promise<OnnxEmbedder> {
    const manifest = loadManifest(dir);
    const tokenizer = loadTokenizer(dir, manifest.tokenizer);
    const session = await createSession(resolve(dir, manifest.model));
    const outs = session.outputNames;
    const output =
      manifest.output ??
      (manifest.pooling === 'none'
        ? outs.find((o) => o === 'sentence_embedding') ?? outs[0]!
        : outs.find((o) => o === 'last_hidden_state' || o === 'token_embeddings') ?? outs[0]!);
    if (!outs.includes(output)) throw new Error(`model has no output ${output} (has ${outs.join(', ')})`);
    const e = new OnnxEmbedder(manifest, tokenizer, session, output, manifest.dims ?? 0);
    // Probe once: learns dims for exports without a manifest and warms the session up.
    const [probe] = await e.embed(['probe']);
    if (manifest.dims !== undefined && probe!.length !== manifest.dims)
      throw new Error(`model ${manifest.id} outputs ${probe!.length} dims, manifest says ${manifest.dims}`);
    e.dims = probe!.length;
    return e;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const enc = texts.map((t) => this.tokenizer.encode(t));
    const order = enc.map((_, i) => i).sort((a, b) => enc[a]!.ids.length - enc[b]!.ids.length);
    const out = new Array<Float32Array>(texts.length);
    let i = 0;
    while (i < order.length) {
      // Sorted by length, so the last member of the batch sets its padded width.
      let j = i + 1;
      while (j < order.length && j - i < MAX_BATCH && (j - i + 1) * Math.max(1, enc[order[j]!]!.ids.length) <= MAX_BATCH_TOKENS) j++;
      const idx = order.slice(i, j);
      const vecs = await this.runBatch(idx.map((k) => enc[k]!));
      idx.forEach((k, n) => (out[k] = vecs[n]!));
      i = j;
    }
    return out;
  }

  private async runBatch(batch: Encoding[]): Promise<Float32Array[]> {
    const B = batch.length;
    const T = Math.max(1, ...batch.map((e) => e.ids.length)); // T >= 1: empty text -> all-masked row
    const ids = new BigInt64Array(B * T);
    const mask = new BigInt64Array(B * T);
    // Write int64s through 32-bit views (little-endian low word): avoids BigInt conversion per token.
    const ids32 = new Int32Array(ids.buffer);
    const mask32 = new Int32Array(mask.buffer);
    const names = this.session.inputNames;
    const wantWeights = names.includes('token_weights');
    const wantTypes = names.includes('token_type_ids');
    const weights = wantWeights ? new Float32Array(B * T) : undefined;
    const types = wantTypes ? new BigInt64Array(B * T) : undefined;
    const types32 = types ? new Int32Array(types.buffer) : undefined;
    batch.forEach((e, b) => {
      const base = b * T;
      for (let t = 0; t < e.ids.length; t++) {
        ids32[2 * (base + t)] = e.ids[t]!;
        mask32[2 * (base + t)] = 1;
        if (weights) weights[base + t] = e.weights?.[t] ?? 1;
        if (types32 && e.typeIds) types32[2 * (base + t)] = e.typeIds[t]!;
      }
    });
    const feeds: Record<string, ort.Tensor> = {};
    for (const n of names) {
      if (n === 'input_ids') feeds[n] = new ort.Tensor('int64', ids, [B, T]);
      else if (n === 'attention_mask') feeds[n] = new ort.Tensor('int64', mask, [B, T]);
      else if (n === 'token_weights') feeds[n] = new ort.Tensor('float32', weights!, [B, T]);
      else if (n === 'token_type_ids') feeds[n] = new ort.Tensor('int64', types!, [B, T]);
      else throw new Error(`unsupported model input ${n}`);
    }
    const res = await this.session.run(feeds, [this.outputName]);
    const y = res[this.outputName]!;
    const data = y.data as Float32Array;
    const dims = y.dims;
    const vecs: Float32Array[] = [];
    if (this.manifest.pooling === 'none' || dims.length === 2) {
      const D = dims[dims.length - 1]!;
      for (let b = 0; b < B; b++) vecs.push(l2normalize(data.slice(b * D, (b + 1) * D)));
      return vecs;
    }
    // [B, T, D] token states.
    const D = dims[2]!;
    for (let b = 0; b < B; b++) {
      const v = new Float32Array(D);
      if (this.manifest.pooling === 'cls') v.set(data.subarray(b * T * D, b * T * D + D));
      else {
        let count = 0;
        for (let t = 0; t < T; t++) {
          if (mask32[2 * (b * T + t)] === 0) continue;
          count++;
          const off = (b * T + t) * D;
          for (let d = 0; d < D; d++) v[d]! += data[off + d]!;
        }
        if (count > 0) for (let d = 0; d < D; d++) v[d]! /= count;
      }
      vecs.push(l2normalize(v));
    }
    return vecs;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
