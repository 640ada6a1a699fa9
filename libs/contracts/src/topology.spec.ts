import { describe, expect, it } from '@jest/globals';
import { databaseEndpointsOf, hashTagOf, pooledStatementTimeoutMs, redisTopologyIssues, redisTopologyOf } from './topology.js';

const single = { REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: 'skill-registry' };

describe('the Redis topology of the settings', () => {
  it('is one server by default, whatever the prefix', () => {
    expect(redisTopologyOf(single)).toEqual({ mode: 'single', url: 'redis://127.0.0.1:6379' });
    expect(redisTopologyOf({ ...single, QUEUE_PREFIX: '{skill-registry}' })).toEqual({ mode: 'single', url: 'redis://127.0.0.1:6379' });
  });

  it('is a cluster from REDIS_CLUSTER_NODES (overriding the default REDIS_URL) or from a redis+cluster:// URL with credentials', () => {
    expect(redisTopologyOf({ ...single, QUEUE_PREFIX: '{sr}', REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b:7001,[::1]:7002' })).toEqual({
      mode: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      tls: false,
    });
    expect(redisTopologyOf({ REDIS_URL: 'rediss+cluster://app:s%40cret@a:7000,b:7001', QUEUE_PREFIX: 'prod-{sr}' })).toEqual({
      mode: 'cluster',
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 7001 },
      ],
      username: 'app',
      password: 's@cret',
      tls: true,
    });
  });

  it('refuses, naming the variable, a cluster prefix without a hash tag, a bad node, or both ways of naming a cluster', () => {
    expect(redisTopologyIssues({ ...single, REDIS_CLUSTER_NODES: 'a:7000' })).toEqual([
      { path: ['QUEUE_PREFIX'], message: expect.stringContaining('{skill-registry}') },
    ]);
    expect(redisTopologyIssues({ REDIS_URL: 'redis+cluster://a:7000', QUEUE_PREFIX: 'x{}y' })).toEqual([
      { path: ['QUEUE_PREFIX'], message: expect.stringContaining('no hash tag') },
    ]);
    expect(redisTopologyIssues({ ...single, QUEUE_PREFIX: '{sr}', REDIS_CLUSTER_NODES: 'a:7000,b' })).toEqual([
      { path: ['REDIS_CLUSTER_NODES'], message: "'b' is not host:port" },
    ]);
    expect(redisTopologyIssues({ ...single, QUEUE_PREFIX: '{sr}', REDIS_CLUSTER_NODES: ' , ' })[0]?.path).toEqual(['REDIS_CLUSTER_NODES']);
    expect(redisTopologyIssues({ ...single, QUEUE_PREFIX: '{sr}', REDIS_CLUSTER_NODES: 'a:70000' })[0]?.path).toEqual([
      'REDIS_CLUSTER_NODES',
    ]);
    expect(
      redisTopologyIssues({ REDIS_URL: 'redis+cluster://a:7000', REDIS_CLUSTER_NODES: 'a:7000', QUEUE_PREFIX: '{sr}' })[0]?.message,
    ).toContain('not both');
    expect(redisTopologyIssues({ ...single, QUEUE_PREFIX: '{sr}', REDIS_CLUSTER_NODES: 'a:7000' })).toEqual([]);
  });

  it('reads a hash tag as Redis Cluster does: the first non-empty {…}', () => {
    expect(hashTagOf('{skill-registry}:skill-executions:wait')).toBe('skill-registry');
    expect(hashTagOf('skill-registry:execution:{0b9e}:events')).toBe('0b9e');
    expect(hashTagOf('a{}b{c}')).toBeNull();
    expect(hashTagOf('plain')).toBeNull();
  });
});

describe('the Postgres endpoints of the settings', () => {
  it('are one direct server unless DATABASE_DIRECT_URL names another than DATABASE_URL (a pooler then)', () => {
    const url = 'postgresql://postgres@127.0.0.1:5432/sr';
    expect(databaseEndpointsOf({ DATABASE_URL: url })).toEqual({ pooled: url, direct: url, behindPooler: false });
    expect(databaseEndpointsOf({ DATABASE_URL: url, DATABASE_DIRECT_URL: url }).behindPooler).toBe(false);
    const pooler = 'postgresql://postgres@127.0.0.1:6432/sr';
    expect(databaseEndpointsOf({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: url })).toEqual({
      pooled: pooler,
      direct: url,
      behindPooler: true,
    });
  });
});

describe('the statement timeout of the pooled connections', () => {
  it('is DATABASE_STATEMENT_TIMEOUT_MS on a direct server, none through a pooler (which would refuse the connection)', () => {
    const url = 'postgresql://postgres@127.0.0.1:5432/sr';
    const pooler = 'postgresql://postgres@127.0.0.1:6432/sr';
    expect(pooledStatementTimeoutMs({ DATABASE_URL: url, DATABASE_STATEMENT_TIMEOUT_MS: 30_000 })).toBe(30_000);
    expect(pooledStatementTimeoutMs({ DATABASE_URL: url, DATABASE_DIRECT_URL: url, DATABASE_STATEMENT_TIMEOUT_MS: 500 })).toBe(500);
    expect(pooledStatementTimeoutMs({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: url, DATABASE_STATEMENT_TIMEOUT_MS: 30_000 })).toBe(0);
  });
});
