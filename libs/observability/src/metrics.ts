import { createHash, timingSafeEqual } from 'node:crypto';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** A process's Prometheus registry with the default process metrics (CPU, memory, event loop, GC). */
export function createMetricsRegistry(app: 'registry' | 'executor'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * Whether a `/metrics` request may read the metrics: always when no token is configured, else only
 * with `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time).
 */
export function metricsAuthorized(token: string | undefined, authorization: string | undefined): boolean {
  if (!token) return true;
  const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!given) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** Seconds as Prometheus wants them, from milliseconds. */
export const seconds = (ms: number) => ms / 1000;

/** Histogram buckets for execution and request durations (seconds): 1 ms to 2 minutes. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** What the database pool metrics read, at scrape time (DatabasePool, libs/database). */
export interface ObservedPool {
  readonly connectedCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  readonly exhaustedWaits: number;
}

/**
 * The process's Postgres pool in `registry`: its connections by state, the requests waiting for one, and those refused
 * because every connection stayed busy (PoolExhausted: a pool too small for the load, not a database away).
 */
export function registerPoolMetrics(registry: Registry, pool: ObservedPool): void {
  new Gauge({
    name: 'skill_database_connections',
    help: "Connections of this process's Postgres pool, by state (busy: checked out; idle)",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const idle = pool.idleCount;
      this.set({ state: 'busy' }, Math.max(0, pool.connectedCount - idle));
      this.set({ state: 'idle' }, idle);
    },
  });
  new Gauge({
    name: 'skill_database_pool_waiting',
    help: "Requests waiting for a connection of this process's Postgres pool",
    registers: [registry],
    collect() {
      this.set(pool.waitingCount);
    },
  });
  let counted = 0;
  new Counter({
    name: 'skill_database_pool_exhausted_total',
    help: 'Requests refused because every connection of the pool stayed busy for the whole wait (answered 503 DATABASE_UNAVAILABLE)',
    registers: [registry],
    collect() {
      const now = pool.exhaustedWaits;
      this.inc(now - counted);
      counted = now;
    },
  });
}
