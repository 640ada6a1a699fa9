// Where the shared services are: one Redis or a Redis Cluster, Postgres direct or behind a pooler.
/** A Redis Cluster URL: `redis+cluster://[user:password@]host:port[,host:port…]` (`rediss+cluster://` for TLS). */
export const CLUSTER_URL = /^rediss?\+cluster:\/\/([^@/]*@)?[^@/]+\/?$/;

interface RedisNodeAddress {
  host: string;
  port: number;
}

/** Where Redis is: one server (the default) or a Redis Cluster reached through any of its seed nodes. */
export type RedisTopology =
  { mode: 'single'; url: string } | { mode: 'cluster'; nodes: RedisNodeAddress[]; username?: string; password?: string; tls: boolean };

interface RedisSettings {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: string | undefined;
  QUEUE_PREFIX: string;
}

class RedisSettingsError extends Error {
  constructor(
    readonly variable: keyof RedisSettings,
    message: string,
  ) {
    super(message);
  }
}

function nodeList(raw: string, variable: keyof RedisSettings): RedisNodeAddress[] {
  const nodes = raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((entry) => {
      // host:port, or [v6]:port
      const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/.exec(entry);
      const port = Number(match?.[2]);
      if (!match || port < 1 || port > 65535) throw new RedisSettingsError(variable, `'${entry}' is not host:port`);
      return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
    });
  if (nodes.length === 0) throw new RedisSettingsError(variable, 'names no node (host:port,host:port…)');
  return nodes;
}

/** The hash tag of a key or prefix as Redis Cluster reads it: the text inside the first {…}, when not empty. */
export function hashTagOf(key: string): string | null {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : null;
}

/** The Redis topology the settings name (REDIS_URL, REDIS_CLUSTER_NODES); throws naming the bad variable. */
export function redisTopologyOf(settings: RedisSettings): RedisTopology {
  const clusterUrl = CLUSTER_URL.test(settings.REDIS_URL);
  if (settings.REDIS_CLUSTER_NODES !== undefined && clusterUrl)
    throw new RedisSettingsError('REDIS_CLUSTER_NODES', 'set either REDIS_CLUSTER_NODES or a redis+cluster:// REDIS_URL, not both');
  let cluster: RedisTopology | null = null;
  if (settings.REDIS_CLUSTER_NODES !== undefined) {
    cluster = { mode: 'cluster', nodes: nodeList(settings.REDIS_CLUSTER_NODES, 'REDIS_CLUSTER_NODES'), tls: false };
  } else if (clusterUrl) {
    const rest = settings.REDIS_URL.slice(settings.REDIS_URL.indexOf('://') + 3).replace(/\/$/, '');
    const at = rest.lastIndexOf('@');
    const [username, password] = at < 0 ? [] : rest.slice(0, at).split(':', 2).map(decodeURIComponent);
    cluster = {
      mode: 'cluster',
      nodes: nodeList(rest.slice(at + 1), 'REDIS_URL'),
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
      tls: settings.REDIS_URL.startsWith('rediss'),
    };
  }
  if (!cluster) return { mode: 'single', url: settings.REDIS_URL };
  // BullMQ's scripts touch several keys of a queue at once: on a cluster they must share one slot.
  if (hashTagOf(settings.QUEUE_PREFIX) === null)
    throw new RedisSettingsError(
      'QUEUE_PREFIX',
      `'${settings.QUEUE_PREFIX}' has no hash tag: on a Redis Cluster the prefix must hold one, e.g. {${settings.QUEUE_PREFIX.replace(/[{}]/g, '')}}, so that every key of the queue is in one slot`,
    );
  return cluster;
}

/** What is wrong with the Redis settings, for a configuration schema's refinement (empty when nothing). */
export function redisTopologyIssues(settings: RedisSettings): { path: string[]; message: string }[] {
  try {
    redisTopologyOf(settings);
    return [];
  } catch (error) {
    if (error instanceof RedisSettingsError) return [{ path: [error.variable], message: error.message }];
    throw error;
  }
}

/** The Postgres endpoints: `pooled` for ordinary statements, `direct` for those that need a session of their own. */
export interface DatabaseEndpoints {
  pooled: string;
  direct: string;
  /** DATABASE_URL is a transaction pooler: named prepared statements must not go through it. */
  behindPooler: boolean;
}

/**
 * The statement_timeout the pooled connections ask Postgres for when they open (DATABASE_STATEMENT_TIMEOUT_MS), or 0:
 * through a transaction pooler none, since PgBouncer refuses a connection that sends a startup parameter it does not
 * know (set it on the role there: ALTER ROLE … SET statement_timeout).
 */
export function pooledStatementTimeoutMs(settings: {
  DATABASE_URL: string;
  DATABASE_DIRECT_URL?: string | undefined;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
}): number {
  return databaseEndpointsOf(settings).behindPooler ? 0 : settings.DATABASE_STATEMENT_TIMEOUT_MS;
}

export function databaseEndpointsOf(settings: { DATABASE_URL: string; DATABASE_DIRECT_URL?: string | undefined }): DatabaseEndpoints {
  const direct = settings.DATABASE_DIRECT_URL ?? settings.DATABASE_URL;
  return { pooled: settings.DATABASE_URL, direct, behindPooler: direct !== settings.DATABASE_URL };
}
