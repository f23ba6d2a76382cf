import { detectIssues } from './index.js';
import type { DetectInput } from './index.js';

/** Piscina task registry for issue detection; inputs and outputs are structured-cloneable. */
export const detectTasks = {
  detectIssues: (i: DetectInput) => detectIssues(i),
};
