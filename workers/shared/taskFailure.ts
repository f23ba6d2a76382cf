/** A task's error as data: structured cloning keeps only standard error names, so the name travels as a field. */
export interface TaskFailure {
  name: string;
  message: string;
  code?: string;
}

export function taskFailure(err: unknown): TaskFailure {
  const e = err as Error & { code?: string };
  return { name: e?.name ?? 'Error', message: e?.message ?? String(err), code: e?.code };
}
