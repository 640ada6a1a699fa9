import { SYSTEM_BIN_DIRS } from './interpreters.js';

/** Variables every script gets; a request's extra variables cannot replace them. */
const BASE_KEYS = new Set(['PATH', 'HOME', 'LANG', 'TMPDIR']);
/** The extra variables the executor gives every script tool run (its ScriptToolRunner sets exactly these). */
export const RUN_VARIABLES = ['SKILL_NAME', 'SKILL_VERSION', 'SKILL_TOOL', 'EXECUTION_ID'] as const;
/** Every variable a script tool run has: what an env_var runtime probe can find. */
export const SCRIPT_VARIABLES: ReadonlySet<string> = new Set([...BASE_KEYS, ...RUN_VARIABLES]);
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The whole environment of a script: PATH, HOME and TMPDIR (both the scratch directory), LANG, and the
 * request's extra variables (e.g. SKILL_NAME). Nothing is taken from the executor's environment, so
 * database URLs, Redis addresses and tokens never reach a script.
 */
export function scriptEnvironment(scratchDir: string, extra: Record<string, string> = {}): Record<string, string> {
  for (const [key, value] of Object.entries(extra)) {
    if (!VARIABLE_NAME.test(key)) throw new TypeError(`Invalid environment variable name for a script: '${key}'`);
    if (BASE_KEYS.has(key)) throw new TypeError(`A script's ${key} is set by the sandbox and cannot be replaced`);
    if (typeof value !== 'string' || value.includes('\0')) throw new TypeError(`Environment variable ${key} must be a string without NUL`);
  }
  return { ...extra, PATH: SYSTEM_BIN_DIRS.join(':'), HOME: scratchDir, TMPDIR: scratchDir, LANG: 'C.UTF-8' };
}
