// The clients of the rolling-restart and kill -9 tests: each sends compressions over REST and MCP tool
// calls (official SDK client, one session for its whole run) through the balancer until stopped.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectMcp } from '../helpers/mcp.js';
import { sampleDocument } from '../helpers/server.js';

/**
 * What docs/deployment.md lets a client see when an instance dies under it, each to be retried: 502,
 * 503, 504, and 0 for a connection the balancer closed without an answer (HAProxy does that, instead of
 * a 502, when the request went out on a reused server connection, as a server closing an idle keep-alive
 * connection would).
 */
export const RETRIABLE = new Set([0, 502, 503, 504]);
const CLOSED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'UND_ERR_CLOSED']);

const causeOf = (err: unknown) => (err as { cause?: { code?: string; message?: string } }).cause;
const closedWithoutAnswer = (err: unknown) => CLOSED.has(causeOf(err)?.code ?? '');

export interface LoadClient {
  key: string;
  mcp: Client;
  sessionId: string | undefined;
  /** Calls answered 200 (REST) or with a non-error result (MCP): each must have its usage event. */
  acknowledged: number;
  /** Answers in RETRIABLE (each retried). */
  retriable: { status: number; what: string }[];
  /** Anything else: a failed request. */
  failures: string[];
  /** Called after each acknowledged call (tests wait on it). */
  onAcknowledged: Set<() => void>;
}

function ack(client: LoadClient): void {
  client.acknowledged++;
  notify(client);
}

function notify(client: LoadClient): void {
  for (const fn of [...client.onAcknowledged]) fn();
}

/** Resolves once the client has `n` more calls acknowledged than now, or has failed one. */
export function moreAcknowledged(client: LoadClient, n: number): Promise<void> {
  const target = client.acknowledged + n;
  return new Promise((resolve) => {
    const check = () => {
      if (client.acknowledged < target && client.failures.length === 0) return;
      client.onAcknowledged.delete(check);
      resolve();
    };
    client.onAcknowledged.add(check);
    check();
  });
}

const LOG = Array.from({ length: 40 }, (_, i) => (i % 7 === 0 ? `ERROR build step ${i} failed: src/mod${i}.ts:12 cannot find name 'helper${i}'` : `info compiling src/mod${i}.ts (${i * 13} ms)`)).join('\n');

function statusOf(err: unknown): number | null {
  if (err instanceof StreamableHTTPError) return err.code ?? null;
  if (closedWithoutAnswer(err)) return 0;
  const m = /HTTP (\d{3})/.exec(String((err as Error)?.message ?? err));
  return m ? Number(m[1]) : null;
}

export async function startClient(url: string, key: string, name: string): Promise<LoadClient> {
  const mcp = await connectMcp(url, key, name);
  return { key, mcp, sessionId: (mcp.transport as { sessionId?: string } | undefined)?.sessionId, acknowledged: 0, retriable: [], failures: [], onAcknowledged: new Set() };
}

/** One REST compression and one MCP call per round until `stop()` says so; retriable answers are retried. */
export async function runClient(url: string, client: LoadClient, stop: () => boolean): Promise<void> {
  const doc = sampleDocument();
  for (let round = 0; !stop(); round++) {
    const text = `${doc}\n\nRound ${round} of ${client.key.slice(0, 12)} at ${Date.now()}.`;
    for (;;) {
      const res = await fetch(`${url}/v1/compress`, {
        method: 'POST',
        headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text, fidelity: 'balanced' }),
      }).catch((err: Error) => err);
      if (res instanceof Error && closedWithoutAnswer(res)) {
        client.retriable.push({ status: 0, what: 'REST' });
        continue;
      }
      if (res instanceof Error) {
        const cause = (res as { cause?: { code?: string; message?: string } }).cause;
        client.failures.push(`REST: ${res.message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`);
        break;
      }
      const body = await res.text();
      if (res.status === 200) {
        ack(client);
        break;
      }
      if (RETRIABLE.has(res.status)) {
        client.retriable.push({ status: res.status, what: 'REST' });
        continue;
      }
      client.failures.push(`REST ${res.status}: ${body.slice(0, 200)}`);
      break;
    }
    for (;;) {
      try {
        const result = await client.mcp.callTool({ name: 'compress_tool_output', arguments: { output: `${LOG}\nround ${round}` } });
        if (result.isError) client.failures.push(`MCP tool error: ${JSON.stringify(result.structuredContent).slice(0, 200)}`);
        else ack(client);
        break;
      } catch (err) {
        const status = statusOf(err);
        if (status !== null && RETRIABLE.has(status)) {
          client.retriable.push({ status, what: 'MCP' });
          continue;
        }
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        client.failures.push(`MCP: ${(err as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`);
        break;
      }
    }
    // Waiters also learn of a failure (they stop waiting on a client that failed).
    notify(client);
  }
  notify(client);
}
