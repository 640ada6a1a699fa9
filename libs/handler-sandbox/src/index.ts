// The handler sandbox: TypeScript handlers run in separate OS processes under bubblewrap, pooled per package,
// with hard timeouts, limits and a framed channel for tool calls, the twin and log lines. Used by the executor
// and by `skill-registry test` (apps/cli), so an author's examples run exactly as they will in production.
export { HandlerLauncher } from './handler-launcher.js';
export { HandlerSandboxPool } from './sandbox-pool.js';
export { PackageInspector, type InspectionTrust } from './package-inspector.js';
export {
  SANDBOX_VARIABLES,
  handlerProcessLimits,
  sandboxPoolOptions,
  sandboxSettingsFrom,
  withSandboxDefaults,
} from './sandbox-settings.js';
export type { ToolReplyBody, TwinCallHandler, TwinOp } from './sandbox-protocol.js';
