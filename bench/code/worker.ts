// Bench-only Piscina worker: dispatches to the engine's task registry (independent of the server's entry).
import { codeTasks } from '../../workers/code/tasks.js';

type Tasks = typeof codeTasks;
type Job = { [K in keyof Tasks]: { task: K; input: Parameters<Tasks[K]>[0] } }[keyof Tasks];

export default function run(job: Job): unknown {
  const fn = codeTasks[job.task] as (input: unknown) => unknown;
  return fn(job.input);
}
