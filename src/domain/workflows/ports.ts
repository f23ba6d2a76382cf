import type { NodeTools } from './graph.js';

/**
 * What the rest of the service reaches of the workflow run executor (src/domain/workflows/executor.ts).
 * `S` is the services object it runs with (src/services.ts fills it in, so this port imports nothing of it).
 */
export interface WorkflowRuns<S> {
  /** Claims and executes runs until close(); `tools`: what workflow nodes may call. */
  start(services: S, tools?: NodeTools | null): void;
  /** Stops claiming and waits for the runs in hand. */
  close(): Promise<void>;
  /** The MCP tools a workflow node may call (null until started). */
  readonly tools: NodeTools | null;
  /** Runs being executed by this instance now. */
  readonly running: number;
  /** Looks for runnable work now rather than at the next poll. */
  kick(): void;
}
