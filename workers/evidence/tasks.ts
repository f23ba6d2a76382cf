import { evidenceStats, type EvidenceInput } from './evidence.js';

// Merged by the worker entry into the Piscina task registry; inputs/outputs are plain data.
export const evidenceTasks = {
  evidenceStats: (input: EvidenceInput) => evidenceStats(input),
};
