import { unifiedDiff } from '../kb/diff.js';
import { countTokens, tokenizerFor } from '../shared/tokens.js';
import { bootstrapMean, checkSchema, scoreCell, type CaseExpectation } from './scoring.js';
import { syntheticCases } from './synthetic.js';
import { describeProblems, renderTemplate, resolveVariables, templateTags, type VariableSpec } from './templates.js';

/** Pool tasks of prompt templates, datasets and experiments: parsing, rendering, diffing, counting, scoring. */
export const promptTasks = {
  promptAnalyze: (i: { body: string; declared: VariableSpec[] | null }) => {
    const r = resolveVariables(i.body, i.declared);
    return r.ok ? { ...r, tokens: countTokens(i.body) } : r;
  },
  promptRender: (i: { body: string; variables: VariableSpec[]; section_fields: string[]; values: Record<string, unknown>; model?: string | null }) => {
    const r = renderTemplate(i.body, i.variables, i.values, i.section_fields);
    return r.ok ? { ...r, tokens: countTokens(r.text, tokenizerFor(i.model)), tokenizer: tokenizerFor(i.model) } : { ...r, message: describeProblems(r.problems) };
  },
  /** Line diff of two versions and each text's token count under each model's tokenizer. */
  promptCompare: (i: { from: string; to: string; fromLabel: string; toLabel: string; models: string[] }) => {
    const diff = unifiedDiff({ from: i.from, to: i.to, fromLabel: i.fromLabel, toLabel: i.toLabel });
    const byTokenizer = new Map<string, { from: number; to: number }>();
    const counts = i.models.map((model) => {
      const tokenizer = tokenizerFor(model);
      let c = byTokenizer.get(tokenizer);
      if (!c) byTokenizer.set(tokenizer, (c = { from: countTokens(i.from, tokenizer), to: countTokens(i.to, tokenizer) }));
      return { model, tokenizer, ...c };
    });
    return { ...diff, counts };
  },
  /** Whether a rewritten template keeps every tag of the original (and still parses), with both token counts. */
  promptRewriteCheck: (i: { original: string; candidate: string; model?: string | null }) => {
    const want = templateTags(i.original);
    const got = templateTags(i.candidate);
    const parses = resolveVariables(i.candidate, null).ok;
    const have = new Map<string, number>();
    for (const t of got) have.set(t, (have.get(t) ?? 0) + 1);
    const missing = want.filter((t) => {
      const n = have.get(t) ?? 0;
      have.set(t, n - 1);
      return n <= 0;
    });
    const tokenizer = tokenizerFor(i.model);
    return { keeps_tags: parses && missing.length === 0 && got.length === want.length, missing_tags: missing, original_tokens: countTokens(i.original, tokenizer), rewritten_tokens: countTokens(i.candidate, tokenizer), tokenizer };
  },
  /**
   * The body cut into paragraphs: those holding a Mustache tag are pinned (kept verbatim by the rewrite),
   * consecutive tag-free ones are merged into one stretch the compressor may shorten. Joined, the parts
   * are the body again.
   */
  promptSegments: (i: { body: string }) => {
    const pieces = i.body.split(/(\n[ \t]*\n\s*)/);
    const parts: { text: string; pinned: boolean }[] = [];
    for (let k = 0; k < pieces.length; k += 2) {
      const text = pieces[k]! + (pieces[k + 1] ?? '');
      const pinned = /\{\{|\}\}/.test(text);
      const last = parts.at(-1);
      if (last && !last.pinned && !pinned) last.text += text;
      else parts.push({ text, pinned });
    }
    return parts;
  },
  /** Usable JSON schemas of a dataset's cases: index and reason of each that is not. */
  datasetCheckSchemas: (i: { schemas: { index: number; schema: Record<string, unknown> }[] }) =>
    i.schemas.map((s) => ({ index: s.index, error: checkSchema(s.schema) })).filter((s) => s.error !== null),
  /** Every case rendered against every version before a run is queued: the problems, at most `limit`. */
  experimentRenderCheck: (i: { versions: { number: number; body: string; variables: VariableSpec[]; section_fields: string[] }[]; cases: Record<string, unknown>[]; limit: number }) => {
    const problems: { case_index: number; version: number; detail: string }[] = [];
    for (const v of i.versions) {
      for (const [k, values] of i.cases.entries()) {
        const r = renderTemplate(v.body, v.variables, values, v.section_fields);
        if (!r.ok && problems.push({ case_index: k, version: v.number, detail: describeProblems(r.problems) }) >= i.limit) return problems;
      }
    }
    return problems;
  },
  experimentScore: (i: { output: string; expectation: CaseExpectation }) => scoreCell(i.output, i.expectation),
  experimentBootstrap: (i: { diffs: number[]; resamples: number; confidence: number; seed: number }) => bootstrapMean(i.diffs, i.resamples, i.confidence, i.seed),
  syntheticCases: (i: { variables: VariableSpec[]; document: string | null; documentVariable: string | null; count: number; terms: number }) => syntheticCases(i),
};
