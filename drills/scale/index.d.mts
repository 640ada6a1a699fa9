// Types of index.mjs for TypeScript callers (the drill itself is plain ESM JavaScript).
export interface DrillCheck {
  label: string;
  ok: boolean;
  detail: string;
}

export interface ScaleDrillContext {
  logDir: string;
  checks: DrillCheck[];
  figures: Record<string, unknown>;
  cleanup(options?: { keepLogs?: boolean }): Promise<void>;
}

export interface ScaleDrillOptions {
  loadSeconds: number;
  rate: number;
  handlerMs: number;
  executors: number;
  mcpClients: number;
  settleSeconds: number;
  faults: ('registry' | 'executor' | 'redis' | 'pgbouncer')[];
  adapters: string[];
  visibilityBoundMs?: number;
}

export function ensureScalePrograms(): void;
export function collectingContext(): Promise<ScaleDrillContext>;
export function runScaleDrill(context: ScaleDrillContext, options: ScaleDrillOptions): Promise<unknown>;

export interface RedisClusterNode {
  port: number;
  alive(): boolean;
  kill9(): Promise<void>;
}

export interface RedisCluster {
  nodes: RedisClusterNode[];
  /** host:port of every node, comma-separated (REDIS_CLUSTER_NODES). */
  seeds: string;
  failover(): Promise<{ oldMaster: number; newMaster: number; healthy: boolean; ms: number }>;
  stop(): Promise<void>;
}

export function startRedisCluster(dir: string, options?: { masters?: number; nodeTimeoutMs?: number }): Promise<RedisCluster>;
