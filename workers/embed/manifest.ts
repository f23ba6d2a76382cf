// Model folder description. The shipped model has a manifest.json; a plain sentence-transformer
// export (model.onnx + vocab.txt / tokenizer.json) gets one inferred from its files.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { StaticTokenizerConfig } from './tokenizer-static.js';

export interface WordPieceConfig {
  kind: 'wordpiece';
  /** vocab.txt (one token per line) or tokenizer.json (HF tokenizers, WordPiece model). */
  vocab: string;
  lowercase: boolean;
  /** Strip accents after lowercasing (BERT uncased default). */
  stripAccents?: boolean;
  maxLength: number;
}

export type TokenizerConfig = StaticTokenizerConfig | WordPieceConfig;

export interface Manifest {
  id: string;
  /** ONNX file, relative to the folder. */
  model: string;
  /** Known output width; inferred by a probe run when absent. */
  dims?: number;
  tokenizer: TokenizerConfig;
  /** 'none': the graph already pools; 'mean': masked mean over token states; 'cls': first token. */
  pooling: 'none' | 'mean' | 'cls';
  /** Output tensor to read; default: 'sentence_embedding' for pooling 'none', else 'last_hidden_state' or the first output. */
  output?: string;
  sha256?: Record<string, string>;
  licence?: string;
  sources?: { package: string; version: string; licence: string; role: string }[];
  build?: Record<string, unknown>;
}

const MODEL_CANDIDATES = ['model.onnx', 'onnx/model.onnx', 'model_quantized.onnx', 'onnx/model_quantized.onnx'];

function readJson(path: string): Record<string, unknown> | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : undefined;
}

/** Read manifest.json, or infer one for a standard sentence-transformer ONNX export. */
export function loadManifest(dir: string): Manifest {
  const explicit = readJson(join(dir, 'manifest.json'));
  if (explicit) return explicit as unknown as Manifest;

  const model = MODEL_CANDIDATES.find((p) => existsSync(join(dir, p)));
  if (!model) throw new Error(`no manifest.json or model.onnx in ${dir}`);
  const tokJson = readJson(join(dir, 'tokenizer.json'));
  const tokCfg = readJson(join(dir, 'tokenizer_config.json'));
  const pool = readJson(join(dir, '1_Pooling', 'config.json'));

  let lowercase = true;
  let stripAccents: boolean | undefined;
  if (typeof tokCfg?.do_lower_case === 'boolean') lowercase = tokCfg.do_lower_case;
  const norm = tokJson?.normalizer as Record<string, unknown> | null | undefined;
  if (norm && typeof norm.lowercase === 'boolean') lowercase = norm.lowercase;
  if (norm && typeof norm.strip_accents === 'boolean') stripAccents = norm.strip_accents;
  const maxLen = Number(tokCfg?.model_max_length);
  const vocab = existsSync(join(dir, 'vocab.txt')) ? 'vocab.txt' : tokJson ? 'tokenizer.json' : undefined;
  if (!vocab) throw new Error(`no vocab.txt or tokenizer.json in ${dir}`);

  return {
    id: `${basename(dir)} (sentence-transformer export)`,
    model,
    tokenizer: {
      kind: 'wordpiece',
      vocab,
      lowercase,
      ...(stripAccents === undefined ? {} : { stripAccents }),
      maxLength: Number.isFinite(maxLen) && maxLen > 0 && maxLen <= 8192 ? maxLen : 512,
    },
    pooling: pool?.pooling_mode_cls_token === true ? 'cls' : 'mean',
  };
}
