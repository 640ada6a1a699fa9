/** How scripts are isolated: bubblewrap, or not at all (an operator's explicit opt-out). */
export type IsolationMode = 'bubblewrap' | 'none';

/** Whether bubblewrap isolation works on this machine, and why not. */
export interface BubblewrapAvailability {
  available: boolean;
  reason: string | null;
}

/** The variable through which an operator opts out of isolation: `SCRIPT_SANDBOX=none`. */
const SANDBOX_OPT_OUT_VARIABLE = 'SCRIPT_SANDBOX';

/**
 * Script tools must run under bubblewrap but it is missing or cannot create a sandbox here. The message
 * names the Debian package and the opt-out, `SCRIPT_SANDBOX=none`, which runs scripts as plain child
 * processes (minimal environment, scratch directory, timeouts, output bounds; no file-system, network or
 * process isolation).
 */
export class ScriptSandboxUnavailable extends Error {
  constructor(readonly reason: string) {
    super(
      `Script tools cannot run isolated: ${reason}. Install bubblewrap (Debian package 'bubblewrap': apt-get install bubblewrap), ` +
        `or set ${SANDBOX_OPT_OUT_VARIABLE}=none to run scripts without isolation (operator opt-out).`,
    );
    this.name = 'ScriptSandboxUnavailable';
  }
}

/**
 * Reads the isolation from `SCRIPT_SANDBOX`: unset or `bubblewrap` is bubblewrap, `none` is the opt-out;
 * anything else stops the start with a message naming the variable.
 */
export function isolationFromEnvironment(env: NodeJS.ProcessEnv = process.env): IsolationMode {
  const value = env[SANDBOX_OPT_OUT_VARIABLE]?.trim();
  if (value === undefined || value === '' || value === 'bubblewrap') return 'bubblewrap';
  if (value === 'none') return 'none';
  throw new Error(`${SANDBOX_OPT_OUT_VARIABLE} must be 'bubblewrap' or 'none', got '${value}'`);
}
