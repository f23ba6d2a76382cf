import { runTask } from '../../src/domain/compute.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Stores many memories at once (benchmark set-up, not the measured path): embeddings and token counts
 * from the same pool task add_memory uses, rows written in batches, the scope's version moved on.
 */
export async function seedMemories(server: TestServer, userId: string, scope: string, texts: string[], batch = 256): Promise<string[]> {
  const { db } = server.app.services;
  const ids: string[] = [];
  for (let i = 0; i < texts.length; i += batch) {
    const part = texts.slice(i, i + batch);
    const titles = part.map((t) => (t.length > 80 ? `${t.slice(0, 77)}...` : t));
    const prep = await runTask(server.app.services, 'memoryPrepare', { texts: part.map((t, k) => `${titles[k]}\n${t}`) });
    const params: unknown[] = [userId, scope];
    const values = part.map((t, k) => {
      const v = prep.vectors[k]!;
      params.push(titles[k], t, prep.tokens[k], Buffer.from(v.buffer, v.byteOffset, v.byteLength), prep.dims);
      const b = params.length - 5;
      return `($1, $2, 'note', $${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, now() + make_interval(secs => ${i + k} / 1000.0))`;
    });
    const rows = await db.query<{ id: string }>(
      `insert into memories (user_id, scope, kind, title, content, tokens, embedding, dims, created_at) values ${values.join(', ')} returning id`,
      params,
    );
    ids.push(...rows.map((r) => r.id));
  }
  await db.query(
    `insert into memory_scopes (user_id, scope, version) values ($1, $2, 1) on conflict (user_id, scope) do update set version = memory_scopes.version + 1`,
    [userId, scope],
  );
  return ids;
}
