// Types of redis-cleanup.mjs for TypeScript callers (the tests' queue clean-up).
export function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void>;
