export { interpreterFor, type Interpreter } from './interpreters.js';
export { SandboxUnavailable, isolationFromEnvironment, SANDBOX_OPT_OUT_VARIABLE } from './sandbox-availability.js';
export type { SandboxAvailability, SandboxIsolation } from './sandbox-availability.js';
export { ScriptSandbox, DEFAULT_BWRAP_PATH, type ScriptSandboxOptions } from './script-sandbox.js';
export type { ScriptRunRequest } from './script-request.js';
export { DEFAULT_LIMITS, type ScriptLimits } from './script-limits.js';
export { OUTPUT_TOO_LARGE, type ScriptError, type ScriptOutcome } from './script-outcome.js';
export type { RunAs } from './scratch-directory.js';
