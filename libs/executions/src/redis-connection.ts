import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisTopology } from '#contracts/index.js';

/** A Redis connection: to one server, or to a Redis Cluster (ioredis's Cluster routes each command by its key's slot). */
export type RedisConnection = Redis | Cluster;

/**
 * How a connection behaves while Redis (or a cluster node) is away: the registry fails fast, the executor
 * waits; both as ioredis options, which this file places where each topology reads them.
 */
export type RedisBehaviour = Pick<RedisOptions, 'maxRetriesPerRequest' | 'enableOfflineQueue' | 'enableAutoPipelining' | 'lazyConnect'>;

/**
 * While a cluster fails a master over, commands to its slots are retried this often (CLUSTERDOWN, TRYAGAIN,
 * a MOVED to the promoted replica) before they fail; a fail-fast caller still answers within about a second.
 */
const CLUSTER_RETRY_DELAY_MS = 200;

/**
 * Opens a connection of the topology. Connection errors are expected while Redis is away: they are
 * swallowed here, and the commands that fail report them where they are used.
 */
export function openRedis(topology: RedisTopology, behaviour: RedisBehaviour = {}): RedisConnection {
  const connection: RedisConnection =
    topology.mode === 'single'
      ? new Redis(topology.url, behaviour)
      : new Cluster(topology.nodes, {
          enableOfflineQueue: behaviour.enableOfflineQueue ?? true,
          enableAutoPipelining: behaviour.enableAutoPipelining ?? false,
          lazyConnect: behaviour.lazyConnect ?? false,
          retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
          retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
          retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
          // Slots move on a failover: learn the new layout soon after, not only on the next MOVED.
          slotsRefreshInterval: 5000,
          redisOptions: {
            ...retries(behaviour),
            ...(topology.username ? { username: topology.username } : {}),
            ...(topology.password ? { password: topology.password } : {}),
            ...(topology.tls ? { tls: {} } : {}),
          },
        });
  connection.on('error', () => undefined);
  return connection;
}

/** A second connection like `connection` (its own socket(s)), e.g. for blocking reads; `behaviour` overrides. */
export function duplicateRedis(connection: RedisConnection, behaviour: RedisBehaviour = {}): RedisConnection {
  const copy =
    connection instanceof Cluster
      ? connection.duplicate(undefined, {
          ...(behaviour.enableOfflineQueue === undefined ? {} : { enableOfflineQueue: behaviour.enableOfflineQueue }),
          redisOptions: { ...connection.options.redisOptions, ...retries(behaviour) },
        })
      : connection.duplicate(behaviour);
  copy.on('error', () => undefined);
  return copy;
}

/** `maxRetriesPerRequest` when the behaviour sets it (null is a value: retry for ever), else nothing (ioredis's default). */
function retries(behaviour: RedisBehaviour): Pick<RedisOptions, 'maxRetriesPerRequest'> {
  return 'maxRetriesPerRequest' in behaviour ? { maxRetriesPerRequest: behaviour.maxRetriesPerRequest } : {};
}
