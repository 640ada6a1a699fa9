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
