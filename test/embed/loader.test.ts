// The sentence-transformer path: a folder with model.onnx + vocab.txt (no manifest), WordPiece
// ids, input_ids/attention_mask/token_type_ids inputs, mean pooling over last_hidden_state.
// The model is a tiny BERT-shaped graph written with onnx-proto: token + segment embeddings.
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DT, encodeModel, floatTensor, int64Tensor, node, valueInfo } from '../../scripts/models/onnx-graph.js';
import { OnnxEmbedder } from '../../workers/embed/embedder.js';
import { cosine, forgetEmbedder, getEmbedder } from '../../workers/embed/index.js';
import { loadManifest } from '../../workers/embed/manifest.js';

const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'the', 'cat', 'dog', 'sat', 'ran', '##s', 'on', 'mat', '.'];
const D = 4;
// Deterministic token table; row r = [r, r^2 mod 7, 1, -r/3]; segment 0 adds a constant.
const table = new Float32Array(VOCAB.length * D).map((_, i) => {
  const r = Math.floor(i / D), d = i % D;
  return [r, (r * r) % 7, 1, -r / 3][d]!;
});
const segment = new Float32Array(2 * D).map((_, i) => (i < D ? 0.5 : -0.5));

function tinyBert(): Uint8Array {
  return encodeModel({
    name: 'tiny_bert',
    inputs: [
      valueInfo('input_ids', DT.INT64, ['batch', 'sequence']),
      valueInfo('attention_mask', DT.INT64, ['batch', 'sequence']),
      valueInfo('token_type_ids', DT.INT64, ['batch', 'sequence']),
    ],
    outputs: [valueInfo('last_hidden_state', DT.FLOAT, ['batch', 'sequence', D])],
    initializers: [
      floatTensor('word', [VOCAB.length, D], table),
      floatTensor('seg', [2, D], segment),
      int64Tensor('ax', [1], [2]),
    ],
    nodes: [
      node('Gather', ['word', 'input_ids'], ['w'], { axis: 0 }),
      node('Gather', ['seg', 'token_type_ids'], ['s'], { axis: 0 }),
      node('Add', ['w', 's'], ['h0']),
      // Padded positions come out as zeros, so dividing by T instead of the mask count would show.
      node('Cast', ['attention_mask'], ['m'], { to: DT.FLOAT }),
      node('Unsqueeze', ['m', 'ax'], ['m3']),
      node('Mul', ['h0', 'm3'], ['last_hidden_state']),
    ],
  });
}

function expected(tokens: string[]): Float32Array {
  const ids = ['[CLS]', ...tokens, '[SEP]'].map((t) => VOCAB.indexOf(t));
  const v = new Float32Array(D);
  for (const id of ids) for (let d = 0; d < D; d++) v[d]! += table[id * D + d]! + segment[d]!;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'st-export-'));
  mkdirSync(join(dir, '1_Pooling'));
  writeFileSync(join(dir, 'vocab.txt'), VOCAB.join('\n') + '\n');
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ do_lower_case: true, model_max_length: 8 }));
  writeFileSync(join(dir, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_mean_tokens: true, pooling_mode_cls_token: false }));
});

describe('sentence-transformer export folder', () => {
  it('infers a WordPiece + mean pooling manifest', () => {
    writeFileSync(join(dir, 'model.onnx'), tinyBert());
    const m = loadManifest(dir);
    expect(m.tokenizer).toMatchObject({ kind: 'wordpiece', vocab: 'vocab.txt', lowercase: true, maxLength: 8 });
    expect(m.pooling).toBe('mean');
    expect(m.model).toBe('model.onnx');
  });

  it('mean-pools over real tokens only (attention mask), including [CLS]/[SEP]', async () => {
    const e = await OnnxEmbedder.load(dir);
    expect(e.dims).toBe(D);
    const [a, b] = await e.embed(['The cats sat.', 'dog']);
    const ea = expected(['the', 'cat', '##s', 'sat', '.']);
    const eb = expected(['dog']);
    for (let d = 0; d < D; d++) {
      expect(a![d]).toBeCloseTo(ea[d]!, 5);
      expect(b![d]).toBeCloseTo(eb[d]!, 5);
    }
    // padding in a batch must not change a vector
    const [single] = await e.embed(['dog']);
    expect(cosine(single!, b!)).toBeCloseTo(1, 6);
    await e.release();
  });

  it('truncates to the model max length', async () => {
    const e = await OnnxEmbedder.load(dir);
    const [long] = await e.embed(['the cat sat on the mat the dog ran']);
    const want = expected(['the', 'cat', 'sat', 'on', 'the', 'mat']); // 8 with [CLS]/[SEP]
    for (let d = 0; d < D; d++) expect(long![d]).toBeCloseTo(want[d]!, 5);
    await e.release();
  });

  it('is what getEmbedder() serves when EMBEDDING_MODEL_DIR points at it', async () => {
    process.env.EMBEDDING_MODEL_DIR = dir;
    forgetEmbedder(); // another test file in this process may have loaded the shipped model
    const e = await getEmbedder();
    expect(e.dims).toBe(D);
    expect(e.modelId).toContain('sentence-transformer export');
    const [v] = await e.embed(['dog']);
    expect(cosine(v!, expected(['dog']))).toBeCloseTo(1, 5);
  });
});

afterAll(() => {
  delete process.env.EMBEDDING_MODEL_DIR;
  forgetEmbedder();
});

