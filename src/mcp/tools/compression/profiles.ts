import { FIDELITY_BUDGET, type Fidelity } from '../../../../workers/shared/fidelity.js';

/** Session compression profiles (set_compression_profile); balanced is the default. */
export const COMPRESSION_PROFILES: Record<string, { fidelity: Fidelity; skeleton_ratio: number; chunk_size: number; description: string }> = {
  minimal: { fidelity: 'abstract', skeleton_ratio: FIDELITY_BUDGET.abstract, chunk_size: 256, description: 'Headings and the few most central sentences.' },
  summary: { fidelity: 'outline', skeleton_ratio: FIDELITY_BUDGET.outline, chunk_size: 384, description: 'An outline with the lead sentences.' },
  balanced: { fidelity: 'balanced', skeleton_ratio: FIDELITY_BUDGET.balanced, chunk_size: 512, description: 'Signatures, key sentences and facts.' },
  detailed: { fidelity: 'detailed', skeleton_ratio: FIDELITY_BUDGET.detailed, chunk_size: 768, description: 'Most facts kept; for careful reading.' },
  full: { fidelity: 'raw', skeleton_ratio: FIDELITY_BUDGET.raw, chunk_size: 1024, description: 'No compression.' },
};

/** Named presets (get_compression_presets): a profile plus how to use it. */
export const COMPRESSION_PRESETS: Record<string, { fidelity: Fidelity; use_query: boolean; preserve_code: boolean; description: string }> = {
  'code-review': { fidelity: 'detailed', use_query: true, preserve_code: true, description: 'Keep code blocks and the sentences around them; pass the review question as query.' },
  chat: { fidelity: 'balanced', use_query: false, preserve_code: false, description: 'Conversation history: keep decisions, facts and open questions.' },
  research: { fidelity: 'detailed', use_query: true, preserve_code: false, description: 'Long sources read against a question: query-guided, generous budget.' },
  aggressive: { fidelity: 'abstract', use_query: false, preserve_code: false, description: 'Maximum savings: a map of the document to decide what to read.' },
  balanced: { fidelity: 'balanced', use_query: false, preserve_code: false, description: 'The default trade-off, about 20% of the tokens.' },
};

/** The catalogue's upper-case fidelity names (STRUCTURE is the balanced level). */
export const FIDELITY_LABEL: Record<Fidelity, string> = {
  abstract: 'ABSTRACT',
  outline: 'OUTLINE',
  balanced: 'STRUCTURE',
  detailed: 'DETAILED',
  raw: 'RAW',
};
