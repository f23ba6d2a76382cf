// Shared imports for the code-engine tests (they go through the public index only).
export * from '../../workers/code/index.js';
export const FIDELITIES_FOR_TEST = ['abstract', 'outline', 'balanced', 'detailed', 'raw'] as const;
