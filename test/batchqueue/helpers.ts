import { sampleDocument } from '../helpers/server.js';

const TOPICS = ['retries and back-off', 'the billing meter', 'key rotation', 'the compute pool', 'index snapshots', 'webhook signatures', 'quota alerts', 'tenant isolation'];

/** A distinct real document per index: the sample document plus a section that names the index. */
export function queueDocument(i: number, repeat = 1): string {
  const topic = TOPICS[i % TOPICS.length];
  const extra = `## Note ${i}\n\nDocument number ${i} covers ${topic}. Its owner reviews ${topic} every ${(i % 7) + 1} weeks and files findings under ticket ${1000 + i}.`;
  return `${sampleDocument().slice(0, 1500 * repeat)}\n\n${extra}`;
}

type Get = (path: string) => Promise<{ status: number; json: any }>;

/** Polls GET /v1/batch-queue/{id} until `until` holds (default: completed). */
export async function waitForJob(get: Get, jobId: string, timeoutMs = 40_000, until: (j: any) => boolean = (j) => j.status === 'completed'): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await get(`/v1/batch-queue/${jobId}`);
    if (res.status !== 200) throw new Error(`GET job ${jobId}: ${res.status} ${JSON.stringify(res.json)}`);
    if (until(res.json)) return res.json;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${res.json.status}: ${JSON.stringify(res.json.progress)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
