/** A sentence embedder: L2-normalised vectors, one per input text. */
export interface Embedder {
  readonly dims: number;
  readonly modelId: string;
  embed(texts: string[]): Promise<Float32Array[]>;
}
