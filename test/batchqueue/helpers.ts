import { join } from 'node:path';
import { spawnUntil, stop } from '../../bench/lib/spawn.js';
import { packageRoot } from '../../src/lib/root.js';
import { sampleDocument } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';

const TOPICS = ['retries and back-off', 'the billing meter', 'key rotation', 'the compute pool', 'index snapshots', 'webhook signatures', 'quota alerts', 'tenant isolation'];

/** A distinct real document per index: the sample document plus a section that names the index. */
export function queueDocument(i: number, repeat = 1): string {
  const topic = TOPICS[i % TOPICS.length];
  const extra = `## Note ${i}\n\nDocument number ${i} covers ${topic}. Its owner reviews ${topic} every ${(i % 7) + 1} weeks and files findings under ticket ${1000 + i}.`;
  return `${sampleDocument().slice(0, 1500 * repeat)}\n\n${extra}`;
}

type Get = (path: string) => Promise<{ status: number; json: any }>;

/** Polls GET /v1/batch-queue/{id} until `until` holds (default: completed); `until` may ask the database too. */
export async function waitForJob(get: Get, jobId: string, timeoutMs = 40_000, until: (j: any) => boolean | Promise<boolean> = (j) => j.status === 'completed'): Promise<any> {
  let last: any;
  return waitFor(() => `job ${jobId} still ${last?.status}: ${JSON.stringify(last?.progress)}`, async () => {
    const res = await get(`/v1/batch-queue/${jobId}`);
    if (res.status !== 200) throw new Error(`GET job ${jobId}: ${res.status} ${JSON.stringify(res.json)}`);
    last = res.json;
    return (await until(res.json)) && res.json;
  }, { timeoutMs, everyMs: 50 });
}

/** A real service process (`node dist/src/main.js`) started for a test, and its base URL. */
export interface ServiceProcess {
  proc: Awaited<ReturnType<typeof spawnUntil>>;
  url: string;
  pid: number;
}

/**
 * Starts the built service with `env` and resolves once its output matches `ready` (the bootstrap
 * owner's key, or the port line); `cleanup` gets a graceful stop for whatever is still running at the end.
 */
export async function startService(env: Record<string, string>, ready: RegExp, cleanup: (() => Promise<void>)[]): Promise<ServiceProcess> {
  const proc = await spawnUntil(join(packageRoot(), 'dist/src/main.js'), env, ready);
  cleanup.push(async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) await stop(proc.child);
  });
  return { proc, url: `http://127.0.0.1:${/"port":(\d+)/.exec(proc.output())![1]}`, pid: proc.child.pid! };
}

/** Sends SIGKILL and resolves once the process is gone. */
export async function killHard(service: ServiceProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => service.proc.child.once('exit', () => resolve()));
  service.proc.child.kill('SIGKILL');
  await exited;
}

/** GET of a path on `url` with the key, answering status and JSON. */
export const getWith = (url: string, key: string) => async (path: string) => {
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, json: (await res.json()) as any };
};
