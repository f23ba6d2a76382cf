import type { Principal } from '../auth/principal.js';
import type { TaskInput, TaskName, TaskOutput } from './ports/compute.js';
import type { Services } from '../services.js';
import type { UsageEventInput, UsageMethod } from './metering/usage.js';
import { enforceQuota } from './metering/quota.js';
import { recordPaymentInBackground } from './commerce/payments.js';
import { runTask, type ComputeOptions } from './compute.js';
import { asDomainError } from './errors.js';

/** The surface a call came in on; batch documents are calls of their own. */
export type Surface = 'REST' | 'MCP' | 'batch';

/** The spec's usage-event status values (docs/architecture.md). */
export type CallStatus = 'success' | 'client_error' | 'server_error' | 'timeout';

/** What a use case reports about the work it did; the call's one usage event carries it. */
export interface UsageFigures {
  inputTokens: number;
  outputTokens: number;
  fidelity?: string | null;
  model?: string | null;
  /** Only its first line, cut to 100 characters, is stored. */
  inputText?: string | null;
  cacheHit?: boolean;
}

export interface CallInit {
  services: Services;
  principal: Principal;
  surface: Surface;
  /** MCP tool name; null for REST. */
  toolName?: string | null;
  /** AI client recognised from MCP clientInfo or the User-Agent. */
  client?: string | null;
  /** Non-compressing MCP helper: recorded with method mcp_advisory, never counted against quota. */
  advisory?: boolean;
  signal?: AbortSignal;
  /** REST request headers: a payment signature among them is charged when the call succeeds. */
  headers?: Record<string, string>;
  /** Told after each compute step (MCP progress notifications, A2A status updates); must not throw. */
  onProgress?: (update: ProgressUpdate) => void;
}

/** Progress of a call in compute steps; `total` once the use case has said how many it will run. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message: string;
}

/**
 * One call of a use case, whatever the surface: who calls, how, and what it did. Use cases take a
 * Call; they reach the pool through it (call.compute), check quota through it, and report their
 * token figures to it. The surface finishes it once, which writes exactly one usage event.
 */
export class Call {
  readonly services: Services;
  readonly principal: Principal;
  readonly surface: Surface;
  private readonly started = performance.now();
  private figures: UsageFigures | null = null;
  private finished = false;
  private stepsDone = 0;
  private stepsExpected: number | undefined;

  constructor(private readonly init: CallInit) {
    this.services = init.services;
    this.principal = init.principal;
    this.surface = init.surface;
  }

  /** Read when needed, not at construction: a REST request makes its AbortController on first use. */
  get signal(): AbortSignal | undefined {
    return this.init.signal;
  }

  /** A sub-call on another surface (each batch document is one), sharing caller and cancellation. */
  child(surface: Surface): Call {
    return new Call({ ...this.init, surface });
  }

  /** Runs a pool task for this call (cancelled when the caller goes away); each one done is a progress step. */
  async compute<K extends TaskName>(name: K, input: TaskInput<K>, options: ComputeOptions = {}): Promise<TaskOutput<K>> {
    const output = await runTask(this.services, name, input, { signal: this.signal, owner: ownerOf(this.principal), ...options });
    this.stepsDone++;
    const total = this.stepsExpected === undefined ? undefined : Math.max(this.stepsExpected, this.stepsDone);
    this.init.onProgress?.({ progress: this.stepsDone, total, message: `${name} done (${this.stepsDone}${total ? ` of ${total}` : ''})` });
    return output;
  }

  /** How many compute steps the use case will run, when it knows: progress then carries a total. */
  expectSteps(total: number): void {
    this.stepsExpected = total;
  }

  /** Compute steps done so far, and the expected total when known. */
  get progress(): { done: number; total: number | undefined } {
    return { done: this.stepsDone, total: this.stepsExpected };
  }

  /** Refuses with quota_exceeded when the key's enforced monthly quota is used up. */
  requireQuota(): Promise<void> {
    return enforceQuota(this.services, this.principal);
  }

  /** States the call's token figures (the last report wins: the response's own numbers). */
  report(figures: UsageFigures): void {
    this.figures = figures;
  }

  get reported(): Readonly<UsageFigures> | null {
    return this.figures;
  }

  /**
   * Writes the call's one usage event (once; later calls are no-ops) and charges a REST payment
   * signature on success. Resolves when the event has committed: surfaces answer after that, so an
   * acknowledged call is never lost (rejects with DatabaseUnavailableError when it cannot be written).
   */
  async finish(status: CallStatus): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    const f = this.figures;
    if (status === 'success' && f && this.init.headers) {
      recordPaymentInBackground(this.services, this.principal, this.init.headers, f.inputTokens - f.outputTokens);
    }
    await this.services.usage.record(this.usageEvent(status));
  }

  /**
   * Ends the call like finish() but hands its one usage event to the caller, who writes it in its own
   * transaction (a queued batch document: with its result, so the two commit together); null when the
   * call was already finished. A later finish() writes nothing.
   */
  takeUsageEvent(status: CallStatus): UsageEventInput | null {
    if (this.finished) return null;
    this.finished = true;
    return this.usageEvent(status);
  }

  private usageEvent(status: CallStatus): UsageEventInput {
    const f = this.figures;
    const method: UsageMethod = this.init.advisory ? 'mcp_advisory' : this.surface;
    return {
      principal: this.principal,
      method,
      toolName: this.init.toolName ?? null,
      client: this.init.client ?? null,
      fidelity: f?.fidelity ?? null,
      model: f?.model ?? null,
      status,
      inputTokens: f?.inputTokens ?? 0,
      outputTokens: f?.outputTokens ?? 0,
      latencyMs: performance.now() - this.started,
      cacheHit: f?.cacheHit,
      inputText: f?.inputText ?? null,
    };
  }

  /** finish() with the status an outcome maps to. */
  finishWith(err: unknown): Promise<void> {
    return this.finish(err === undefined ? 'success' : statusOf(err));
  }
}

/** Whose compute a call is, for the pool's fair share: its key, or its user for identity-provider sessions. */
export function ownerOf(principal: Principal): string {
  return principal.keyId ?? `user:${principal.userId}`;
}

/** Usage-event status of a failed call: the caller's fault, the deadline, or ours. */
export function statusOf(err: unknown): CallStatus {
  const e = asDomainError(err);
  if (!e) return 'server_error';
  if (e.kind === 'timeout') return 'timeout';
  if (e.kind === 'unavailable' || e.kind === 'bad_gateway') return 'server_error';
  return 'client_error';
}
