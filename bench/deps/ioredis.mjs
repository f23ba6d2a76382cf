// ioredis 5 vs 6: sequential SET/GET round trips and one pipeline, same Redis, interleaved rounds.
// REDIS_URL=redis://127.0.0.1:6379 node bench/deps/ioredis.mjs
import { Redis as Redis6 } from 'ioredis';
import { importOld, race, report } from './old.mjs';

const { Redis: Redis5 } = await importOld('ioredis5/built/index.js');
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const clients = { v5: new Redis5(url), v6: new Redis6(url) };
const work = (c, tag) => async () => {
  for (let i = 0; i < 500; i++) {
    await c.set(`depbench:${tag}:${i}`, 'x'.repeat(64));
    await c.get(`depbench:${tag}:${i}`);
  }
  const p = c.pipeline();
  for (let i = 0; i < 2000; i++) p.incr(`depbench:${tag}:n`);
  await p.exec();
};
const medians = await race(15, { v5: work(clients.v5, 'a'), v6: work(clients.v6, 'b') });
await report('ioredis 1000 round trips + 2000-command pipeline', medians, 'v5');
const keys = await clients.v6.keys('depbench:*');
if (keys.length) await clients.v6.del(...keys);
for (const c of Object.values(clients)) c.disconnect();
