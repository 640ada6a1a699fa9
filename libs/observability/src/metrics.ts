import { createHash, timingSafeEqual } from 'node:crypto';
import { Registry, collectDefaultMetrics } from 'prom-client';

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
