import { readdirSync, readFileSync } from 'node:fs';

/** CPU time of every thread of process `pid` so far, in µs (/proc/<pid>/task/<tid>/schedstat: ns on CPU). */
export function processCpuUs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1000;
}

export interface CpuPerCall {
  /** µs of CPU per call in the service (all threads) and in this process (the client). */
  server: number;
  client: number;
}

/**
 * CPU per call of `a` and of `b`, in alternating blocks (so both see the same machine): load from
 * other work stretches wall time a lot but CPU time less. With two pids, `a` runs against the first
 * service and `b` against the second.
 */
export async function measureCpu(pid: number | [number, number], a: () => Promise<unknown>, b: () => Promise<unknown>, blocks: number, perBlock: number): Promise<{ a: CpuPerCall; b: CpuPerCall }> {
  const sum = { a: { server: 0, client: 0 }, b: { server: 0, client: 0 } };
  for (let i = 0; i < blocks * 2; i++) {
    const [kind, fn] = i % 2 === 0 ? (['a', a] as const) : (['b', b] as const);
    const target = Array.isArray(pid) ? pid[i % 2]! : pid;
    const server0 = processCpuUs(target);
    const client0 = process.cpuUsage();
    for (let j = 0; j < perBlock; j++) await fn();
    const client = process.cpuUsage(client0);
    sum[kind].server += processCpuUs(target) - server0;
    sum[kind].client += client.user + client.system;
  }
  const per = (s: CpuPerCall) => ({ server: s.server / (blocks * perBlock), client: s.client / (blocks * perBlock) });
  return { a: per(sum.a), b: per(sum.b) };
}
