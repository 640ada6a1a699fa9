import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { databaseEndpointsOf, redisTopologyOf } from '#contracts/index.js';
import { loadExecutorConfig } from '../apps/executor/src/config/executor-config.js';
import { loadConfig } from '../apps/registry/src/config/app-config.js';
import { REPO_ROOT } from './support/skill-packages.js';

/** docker-compose.scale.yml read as Compose reads it (merge keys, anchors); no Docker engine runs here. */
const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.scale.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    { environment?: Record<string, string>; command?: string | string[]; volumes?: string[]; deploy?: { replicas?: number } }
  >;
};
const services = compose.services;

/** A service's environment with Compose's `${VAR:?…}` / `${VAR:-default}` filled in as an operator would. */
function environmentOf(name: string): Record<string, string> {
  const env = services[name]?.environment ?? {};
  return Object.fromEntries(
    Object.entries(env).map(([key, value]) => [
      key,
      String(value)
        .replace(/\$\{ADMIN_TOKENS:\?[^}]*\}/, 'alice=a-long-random-token')
        .replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1'),
    ]),
  );
}

describe('docker-compose.scale.yml', () => {
  it('runs 2 registries and 3 executors whose environments pass their own configuration checks: pooler, direct Postgres, Redis Cluster', () => {
    for (const name of ['registry-1', 'registry-2']) {
      const config = loadConfig(environmentOf(name));
      expect(databaseEndpointsOf(config)).toEqual({
        pooled: 'postgresql://postgres:postgres@pgbouncer:6432/skill_registry',
        direct: 'postgresql://postgres:postgres@postgres:5432/skill_registry',
        behindPooler: true,
      });
      expect(redisTopologyOf(config)).toMatchObject({ mode: 'cluster', nodes: expect.arrayContaining([{ host: 'redis-6', port: 6379 }]) });
    }
    const executor = loadExecutorConfig(environmentOf('executor'));
    expect(redisTopologyOf(executor)).toEqual(redisTopologyOf(loadConfig(environmentOf('registry-1'))));
    expect(executor.QUEUE_PREFIX).toBe('{skill-registry}');
    expect(services.executor?.deploy?.replicas).toBe(3);
  });

  it('forms the Redis Cluster from the 6 nodes it lists, each in cluster mode announcing its own name', () => {
    const nodes = Object.keys(services).filter((name) => /^redis-\d$/.test(name));
    expect(nodes).toHaveLength(6);
    for (const node of nodes) {
      expect(services[node]?.command).toContain('--cluster-enabled yes');
      expect(services[node]?.command).toContain(`--cluster-announce-hostname ${node}`);
    }
    const init = String(services['redis-cluster-init']?.command);
    for (const node of nodes) expect(init).toContain(`${node}:6379`);
    expect(init).toContain('--cluster-replicas 1');
    expect(environmentOf('registry-1').REDIS_CLUSTER_NODES?.split(',').sort()).toEqual(nodes.map((node) => `${node}:6379`).sort());
  });

  it('gives HAProxy every address deploy/haproxy.cfg reads, pointing at the registries, and mounts the shipped files', () => {
    const config = readFileSync(path.join(REPO_ROOT, 'deploy/haproxy.cfg'), 'utf8');
    const variables = [...new Set([...config.matchAll(/"\$\{([A-Z0-9_]+)\}/g)].map((match) => match[1]))].sort();
    const env = environmentOf('haproxy');
    expect(Object.keys(env).sort()).toEqual(variables);
    expect(env).toMatchObject({ REGISTRY_1_HTTP: 'registry-1:3000', REGISTRY_2_GRPC: 'registry-2:50051' });
    expect(services.haproxy?.volumes).toContain('./deploy:/usr/local/etc/haproxy:ro');
    expect(services.pgbouncer?.volumes).toContain('./deploy/pgbouncer.ini:/etc/pgbouncer/pgbouncer.ini:ro');
    const pgbouncer = readFileSync(path.join(REPO_ROOT, 'deploy/pgbouncer.ini'), 'utf8');
    expect(pgbouncer).toMatch(/^pool_mode = transaction$/m);
    expect(pgbouncer).toMatch(/^skill_registry = host=postgres port=5432 dbname=skill_registry$/m);
  });
});
