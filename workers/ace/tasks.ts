// ACE playbooks in the pool: embeddings and token counts of candidate bullets with their nearest
// existing bullet (delta ADD with dedup), and near-duplicate groups of a playbook (grow-and-refine).
import { getEmbedder } from '../embed/index.js';
import { countTokens } from '../shared/tokens.js';
import { candidateInsights } from './candidates.js';
import { clusters, matchCandidates, type CandidateMatch, type Cluster } from './dedup.js';

export interface AceCorpus {
  /** Row-major unit vectors, dims values per bullet. */
  vectors: Float32Array;
  n: number;
  dims: number;
}

export const aceTasks = {
  /** Embeds candidate bullets and matches each against the playbook's bullets and the earlier candidates. */
  aceMatch: async (i: { texts: string[]; corpus: AceCorpus; threshold: number }): Promise<{ dims: number; model: string; vectors: Float32Array[]; tokens: number[]; matches: CandidateMatch[] }> => {
    const e = await getEmbedder();
    const vectors = await e.embed(i.texts);
    // A corpus embedded by another model (dims differ) cannot be compared: nothing matches it.
    const n = i.corpus.dims === e.dims ? i.corpus.n : 0;
    return { dims: e.dims, model: e.modelId, vectors, tokens: i.texts.map((t) => countTokens(t)), matches: matchCandidates(vectors, i.corpus.vectors, n, e.dims, i.threshold) };
  },

  /** Insights from a model's free-text answer (no JSON): grounded sentences with their sections. */
  aceCandidates: (i: { text: string; reference: string; max: number }) => ({ insights: candidateInsights(i.text, i.reference, i.max) }),

  /** Near-duplicate groups of a playbook's bullets, in the given order. */
  aceClusters: (i: AceCorpus & { threshold: number }): { clusters: Cluster[] } => ({ clusters: clusters(i.vectors, i.n, i.dims, i.threshold) }),
};
