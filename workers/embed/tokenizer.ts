// Common tokenizer contract: both the static word tokenizer and WordPiece produce ids the
// same ONNX runner can feed as input_ids / attention_mask (+ optional extras).
export interface Encoding {
  ids: number[];
  /** Per-token weights (static model only; fed as `token_weights` when the graph has it). */
  weights?: number[];
  /** Segment ids (BERT token_type_ids); zeros when absent. */
  typeIds?: number[];
}

export interface Tokenizer {
  readonly kind: string;
  encode(text: string): Encoding;
}
