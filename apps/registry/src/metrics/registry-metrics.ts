import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { SKILL_STATUSES } from '#contracts/index.js';
import type { DatabasePool } from '#database/index.js';
import { DURATION_BUCKETS, createMetricsRegistry, registerPoolMetrics, seconds } from '#observability/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { AdapterToolDirectory } from '../adapter-tools/adapter-tool-directory.js';
import { DATABASE_POOL } from '../config/database-pool.js';

export type Transport = 'rest' | 'grpc' | 'mcp';

/**
 * The registry's Prometheus metrics (GET /metrics). Requests are labelled by transport, route
 * pattern (REST/MCP) or RPC method (gRPC), and status; catalog and tool gauges are read at scrape
 * time. Labels are bounded: no ids, no paths with values, no free text.
 */
@Injectable()
export class RegistryMetrics {
  readonly registry = createMetricsRegistry('registry');

  private readonly requests = new Counter({
    name: 'skill_registry_requests_total',
    help: 'Requests answered, by transport, route (or RPC method), HTTP method and status',
    labelNames: ['transport', 'route', 'method', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'skill_registry_request_duration_seconds',
    help: 'Time to answer a request, by transport and route (or RPC method)',
    labelNames: ['transport', 'route', 'method'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  constructor(catalog: SkillCatalog, tools: AdapterToolDirectory, @Inject(DATABASE_POOL) pool: DatabasePool) {
    registerPoolMetrics(this.registry, pool);
    new Gauge({
      name: 'skill_registry_versions',
      help: 'Skill versions in the catalog, by status',
      labelNames: ['status'],
      registers: [this.registry],
      collect() {
        const counts = Object.fromEntries(SKILL_STATUSES.map((status) => [status, 0])) as Record<string, number>;
        for (const skill of catalog.all()) for (const version of skill.versions) counts[version.status] = (counts[version.status] ?? 0) + 1;
        for (const [status, count] of Object.entries(counts)) this.set({ status }, count);
      },
    });
    const toolGauge = new Gauge({
      name: 'skill_tool_available',
      help: 'Whether each tool of the configured adapters can run now (1) or not (0)',
      labelNames: ['tool_id'],
      registers: [this.registry],
    });
    new Gauge({
      name: 'skill_adapter_reachable',
      help: 'Whether each configured tool adapter answers (1) or not (0)',
      labelNames: ['adapter'],
      registers: [this.registry],
      async collect() {
        const listing = await tools.list().catch(() => null);
        if (!listing) return;
        for (const adapter of listing.adapters) this.set({ adapter: adapter.adapter }, adapter.reachable ? 1 : 0);
        for (const tool of listing.tools) toolGauge.set({ tool_id: tool.toolId }, tool.available ? 1 : 0);
      },
    });
  }

  /** One answered request. `route` is a pattern (`/v1/skills/:name`) or an RPC method, never a raw path. */
  observe(transport: Transport, route: string, method: string, status: string | number, durationMs: number): void {
    this.requests.inc({ transport, route, method, status: String(status) });
    this.latency.observe({ transport, route, method }, seconds(durationMs));
  }
}
