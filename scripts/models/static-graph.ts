// The shipped model as an ONNX graph:
//   E  = Cast(Gather(table_int8, input_ids))             [B,T,D]
//   w  = Gather(row_weight, input_ids) * mask * token_weights
//        (row_weight = SIF weight x int8 dequantisation scale; token_weights = OOV n-gram shares)
//   s  = sum_t w_t E_t  (as MatMul [B,1,T] x [B,T,D])     [B,D]
//   y  = s @ projection                                   (common-component removal, folded with
//                                                          any distilled linear map)  [B,K]
//   out = y / max(||y||, eps)
// Inputs follow the sentence-transformer convention (input_ids, attention_mask) plus token_weights.
import { DT, encodeModel, floatTensor, int64Tensor, int8Tensor, node, valueInfo } from './onnx-graph.js';

export interface StaticModelParts {
  rows: number;
  dims: number;
  outDims: number;
  table: Int8Array; // rows x dims, symmetric per-row quantisation
  weights: Float32Array; // rows: SIF weight x row scale
  projection: Float32Array; // dims x outDims
  metadata: Record<string, string>;
}

export function buildStaticModel(p: StaticModelParts): Uint8Array {
  return encodeModel({
    name: 'static_sif_embedding',
    docString: 'Static word embeddings with SIF weighting, common-component removal and L2 normalisation.',
    metadata: p.metadata,
    inputs: [
      valueInfo('input_ids', DT.INT64, ['batch', 'sequence']),
      valueInfo('attention_mask', DT.INT64, ['batch', 'sequence']),
      valueInfo('token_weights', DT.FLOAT, ['batch', 'sequence']),
    ],
    outputs: [valueInfo('sentence_embedding', DT.FLOAT, ['batch', p.outDims])],
    initializers: [
      int8Tensor('table', [p.rows, p.dims], p.table),
      floatTensor('word_weight', [p.rows], p.weights),
      floatTensor('projection', [p.dims, p.outDims], p.projection),
      int64Tensor('axis_seq', [1], [1]),
      floatTensor('eps', [], new Float32Array([1e-12])),
    ],
    nodes: [
      node('Gather', ['table', 'input_ids'], ['emb_q'], { axis: 0 }),
      node('Cast', ['emb_q'], ['emb'], { to: DT.FLOAT }),
      node('Gather', ['word_weight', 'input_ids'], ['w_word'], { axis: 0 }),
      node('Cast', ['attention_mask'], ['mask_f'], { to: DT.FLOAT }),
      node('Mul', ['w_word', 'mask_f'], ['w_masked']),
      node('Mul', ['w_masked', 'token_weights'], ['w_tok']),
      // Weighted sum as a batched MatMul [B,1,T] x [B,T,D]: one kernel instead of Mul + ReduceSum.
      node('Unsqueeze', ['w_tok', 'axis_seq'], ['w_row']),
      node('MatMul', ['w_row', 'emb'], ['pooled']),
      node('MatMul', ['pooled', 'projection'], ['projected']),
      node('ReduceL2', ['projected'], ['norm'], { axes: [2], keepdims: 1 }),
      node('Max', ['norm', 'eps'], ['norm_safe']),
      node('Div', ['projected', 'norm_safe'], ['normalised']),
      node('Squeeze', ['normalised', 'axis_seq'], ['sentence_embedding']),
    ],
  });
}
