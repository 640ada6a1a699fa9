// Benchmarks run against the machine's shared Redis: remove what a run left under its key prefix
// (event streams kept for days, completed jobs), so repeated runs do not fill Redis.
import { Redis } from 'ioredis';

export async function deleteRedisKeys(redisUrl, prefix) {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
