// Benchmarks run against the machine's shared Redis: remove what a run left under its key prefix
// (event streams kept for days, completed jobs), so repeated runs do not fill Redis.
import { Redis } from 'ioredis';

export async function deleteRedisKeys(redisUrl, prefix) {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  // The prefix matched as written: a '*', '?', '[' or '\\' in it is a glob character of MATCH.
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}:*`;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
