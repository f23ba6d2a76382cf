// Scores of one experiment cell (exact match, contains, JSON-schema validity) and the paired
// bootstrap of compare_experiment_runs. Schemas are data, checked with Ajv in the pool, where a
// pathological schema or pattern is stopped by the task deadline.
import { Ajv, type ValidateFunction } from 'ajv';

export interface CaseExpectation {
  expected?: string;
  contains?: string[];
  json_schema?: Record<string, unknown>;
}

export interface CellScores {
  exact_match: number | null;
  contains: number | null;
  json_valid: number | null;
  json_errors?: string[];
}

const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: true });
// Compiled schemas by their text: a run scores the same few schemas many times.
const compiled = new Map<string, ValidateFunction>();

function validator(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(schema);
    if (compiled.size > 200) compiled.clear();
    compiled.set(key, v);
  }
  return v;
}

/** Null when the schema is usable, else why not. */
export function checkSchema(schema: Record<string, unknown>): string | null {
  try {
    validator(schema);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A model often wraps JSON in a fenced block: the block's content is what is parsed. */
function jsonPart(text: string): string {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/.exec(text);
  return (fenced ? fenced[1]! : text).trim();
}

export function scoreCell(output: string, c: CaseExpectation): CellScores {
  const scores: CellScores = { exact_match: null, contains: null, json_valid: null };
  if (c.expected !== undefined) scores.exact_match = output.trim() === c.expected.trim() ? 1 : 0;
  if (c.contains?.length) {
    const lower = output.toLowerCase();
    scores.contains = c.contains.filter((s) => lower.includes(s.toLowerCase())).length / c.contains.length;
  }
  if (c.json_schema) {
    let value: unknown;
    try {
      value = JSON.parse(jsonPart(output));
    } catch {
      scores.json_valid = 0;
      scores.json_errors = ['output is not JSON'];
      return scores;
    }
    const validate = validator(c.json_schema);
    scores.json_valid = validate(value) ? 1 : 0;
    if (!scores.json_valid) scores.json_errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'invalid'}`);
  }
  return scores;
}

/** Deterministic PRNG (mulberry32): the same two runs give the same interval. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BootstrapResult {
  mean_difference: number;
  ci_low: number;
  ci_high: number;
  confidence: number;
  resamples: number;
  n: number;
}

/** Percentile bootstrap of the mean of paired differences. */
export function bootstrapMean(diffs: number[], resamples: number, confidence: number, seed: number): BootstrapResult {
  const n = diffs.length;
  const mean = n ? diffs.reduce((s, d) => s + d, 0) / n : 0;
  if (n === 0) return { mean_difference: 0, ci_low: 0, ci_high: 0, confidence, resamples: 0, n };
  const next = rng(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += diffs[Math.floor(next() * n)]!;
    means[r] = s / n;
  }
  means.sort();
  const alpha = (1 - confidence) / 2;
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
  return { mean_difference: mean, ci_low: at(alpha), ci_high: at(1 - alpha), confidence, resamples, n };
}
