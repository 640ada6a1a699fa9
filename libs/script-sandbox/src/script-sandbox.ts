import { access, constants } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readHostLayout, SANDBOX_PACKAGE_DIR } from './bubblewrap-arguments.js';
import { findProgram, interpreterCommand, type Interpreter } from './interpreters.js';
import { ScriptSandboxUnavailable, type BubblewrapAvailability, type IsolationMode } from './sandbox-availability.js';
import { createScratchDirectory, pathReachableBy, removeScratchDirectory, type RunAs } from './scratch-directory.js';
import { directLaunch, isolatedLaunch, startLaunch, type HostSetup, type Launch } from './script-launch.js';
import { prlimitCommand, resolveLimits } from './script-limits.js';
import { outcomeOfEnd, type ScriptError, type ScriptOutcome } from './script-outcome.js';
import { checkScript, type ScriptRunRequest } from './script-request.js';

export interface ScriptSandboxOptions {
  /** `none` only when the operator opted out explicitly (SCRIPT_SANDBOX=none). */
  isolation: IsolationMode;
  /** Default /usr/bin/bwrap. */
  bwrapPath?: string;
  /** Where run directories are made (default the OS temp directory); the sandbox user must reach it. */
  scratchRoot?: string;
  /** The unprivileged user scripts run as when the executor runs as root (default nobody, 65534). */
  runAs?: RunAs;
}

const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';
const DEFAULT_CANCEL_GRACE_MS = 2000;
const NOBODY: RunAs = { uid: 65534, gid: 65534 };
const PROBE_TIMEOUT_MS = 10_000;

type Ended = { ok: true; output: Record<string, unknown>; stderrTail: string } | { ok: false; error: ScriptError };

/**
 * Runs script tools (python3, bash, node) as isolated child processes: JSON on stdin, one JSON object
 * on stdout, exit 0 for success. Each run gets a fresh scratch directory, a minimal environment, bounded
 * output, a hard timeout that kills the whole process group, and under bubblewrap no network, a
 * read-only view of /usr and the package, its own PID namespace, an unprivileged uid and process and
 * memory limits.
 */
export class ScriptSandbox {
  private setup: Promise<HostSetup> | null = null;
  private readonly interpreters = new Map<Interpreter, Promise<string | null>>();

  constructor(private readonly options: ScriptSandboxOptions) {
    if (options.runAs?.uid === 0) throw new RangeError('runAs must be an unprivileged user: the kernel does not limit processes of uid 0');
  }

  /** Whether bubblewrap isolation can run here (bwrap and prlimit present, a trial sandbox starts). */
  static async detect(bwrapPath: string = DEFAULT_BWRAP_PATH): Promise<BubblewrapAvailability> {
    try {
      await new ScriptSandbox({ isolation: 'bubblewrap', bwrapPath }).ready();
      return { available: true, reason: null };
    } catch (error) {
      if (error instanceof ScriptSandboxUnavailable) return { available: false, reason: error.reason };
      throw error;
    }
  }

  /** Checks once that runs can start; call it at start-up. Rejects with ScriptSandboxUnavailable. */
  async ready(): Promise<void> {
    await this.hostSetup();
  }

  /** What the probe found (bash, prlimit, the host layout, the sandbox user), for other sandboxed processes. */
  host(): Promise<HostSetup> {
    return this.hostSetup();
  }

  /** Where bwrap is. */
  get bubblewrap(): string {
    return this.bwrapPath();
  }

  /**
   * Runs one script. Every problem of the script is an outcome; it rejects only with ScriptSandboxUnavailable,
   * or with a RangeError/TypeError for a malformed request (limits, timeout, env names).
   */
  async run(request: ScriptRunRequest): Promise<ScriptOutcome> {
    const started = performance.now();
    const ended = (outcome: Ended): ScriptOutcome => ({ ...outcome, durationMs: Math.round(performance.now() - started) });
    const refused = (message: string, details: Record<string, unknown> = {}) =>
      ended({ ok: false, error: { code: 'HANDLER_ERROR', message, details: { script: request.script, ...details } } });
    const limits = resolveLimits(request.limits);
    if (!Number.isSafeInteger(request.timeoutMs) || request.timeoutMs <= 0) throw new RangeError('timeoutMs must be a positive integer');
    const cancelGraceMs = request.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
    const setup = await this.hostSetup();

    if (request.signal?.aborted) {
      return ended({ ok: false, error: { code: 'CANCELLED', message: 'Execution cancelled before the script started', details: {} } });
    }
    const checked = await checkScript(request);
    if ('problem' in checked) return refused(checked.problem);
    const blocked = setup.runAs ? await pathReachableBy(request.packageDir, setup.runAs) : null;
    if (blocked !== null) {
      return refused(`The package directory cannot be read by the sandbox user (uid ${setup.runAs?.uid}): ${blocked}`, {
        hint: 'package directories must be 0755 (and their parents searchable), files 0644',
      });
    }
    const binary = await this.interpreter(checked.interpreter);
    if (binary === null) return refused(`${checked.interpreter} is not installed on this machine`, { interpreter: checked.interpreter });

    const scratchDir = await createScratchDirectory(this.scratchRoot(), setup.runAs);
    try {
      const launch: Launch =
        this.options.isolation === 'bubblewrap'
          ? isolatedLaunch(
              setup,
              this.bwrapPath(),
              { packageDir: request.packageDir, scratchDir },
              [
                ...prlimitCommand(setup.prlimit as string, limits, true),
                ...interpreterCommand(checked.interpreter, binary, `${SANDBOX_PACKAGE_DIR}/${checked.script}`),
              ],
              request.env,
            )
          : directLaunch(
              setup,
              scratchDir,
              [
                ...(setup.prlimit ? prlimitCommand(setup.prlimit, limits, false) : []),
                ...interpreterCommand(checked.interpreter, binary, path.resolve(request.packageDir, checked.script)),
              ],
              request.env,
            );
      const end = await startLaunch(launch, {
        input: JSON.stringify(request.input) ?? 'null',
        timeoutMs: request.timeoutMs,
        signal: request.signal,
        cancelGraceMs,
        maxStdoutBytes: limits.maxStdoutBytes,
        maxStderrBytes: limits.maxStderrBytes,
      });
      const outcome = outcomeOfEnd(end, {
        script: checked.script,
        timeoutMs: request.timeoutMs,
        cancelGraceMs,
        maxStdoutBytes: limits.maxStdoutBytes,
        exitCodeCarriesSignal: this.options.isolation === 'bubblewrap',
      });
      return ended(outcome.ok ? { ...outcome, stderrTail: end.stderrTail } : outcome);
    } finally {
      await removeScratchDirectory(scratchDir);
    }
  }

  private hostSetup(): Promise<HostSetup> {
    this.setup ??= this.probeHost().catch((error: unknown) => {
      this.setup = null; // a later call looks again (bubblewrap may have been installed meanwhile)
      throw error;
    });
    return this.setup;
  }

  private async probeHost(): Promise<HostSetup> {
    const bash = await findProgram('bash', '/usr');
    if (bash === null) throw new ScriptSandboxUnavailable('bash was not found in /usr/bin');
    if (this.options.isolation === 'none') return { bash, prlimit: await findProgram('prlimit'), layout: null, runAs: null };
    try {
      await access(this.bwrapPath(), constants.X_OK);
    } catch {
      throw new ScriptSandboxUnavailable(`bubblewrap was not found at ${this.bwrapPath()}`);
    }
    const prlimit = await findProgram('prlimit', '/usr');
    if (prlimit === null) throw new ScriptSandboxUnavailable('prlimit (Debian package util-linux) was not found in /usr/bin');
    const runAs = process.getuid?.() === 0 ? (this.options.runAs ?? NOBODY) : null;
    const setup: HostSetup = { bash, prlimit, layout: await readHostLayout(), runAs };
    const blocked = runAs ? await pathReachableBy(this.scratchRoot(), runAs) : null;
    if (blocked !== null) {
      throw new ScriptSandboxUnavailable(
        `the scratch root ${this.scratchRoot()} cannot be reached by the sandbox user (uid ${runAs?.uid}): ${blocked}`,
      );
    }
    await this.trialRun(setup);
    return setup;
  }

  /** A sandbox with the real flags around `true`: user namespaces may be disabled, or bwrap too old. */
  private async trialRun(setup: HostSetup): Promise<void> {
    const scratchDir = await createScratchDirectory(this.scratchRoot(), setup.runAs);
    try {
      const trueProgram = (await findProgram('true', '/usr')) ?? '/usr/bin/true';
      const end = await startLaunch(isolatedLaunch(setup, this.bwrapPath(), { packageDir: scratchDir, scratchDir }, [trueProgram]), {
        input: '',
        timeoutMs: PROBE_TIMEOUT_MS,
        cancelGraceMs: 0,
        maxStdoutBytes: 4096,
        maxStderrBytes: 4096,
      });
      if (end.kind !== 'exited' || end.exitCode !== 0) {
        const why = end.spawnError?.message ?? (end.stderrTail.trim() || `exit code ${end.exitCode}`);
        throw new ScriptSandboxUnavailable(`bubblewrap cannot create a sandbox on this machine (${why})`);
      }
    } finally {
      await removeScratchDirectory(scratchDir);
    }
  }

  private interpreter(interpreter: Interpreter): Promise<string | null> {
    let found = this.interpreters.get(interpreter);
    if (!found) {
      found = findProgram(interpreter, this.options.isolation === 'bubblewrap' ? '/usr' : undefined);
      this.interpreters.set(interpreter, found);
    }
    return found;
  }

  private bwrapPath(): string {
    return this.options.bwrapPath ?? DEFAULT_BWRAP_PATH;
  }

  private scratchRoot(): string {
    return path.resolve(this.options.scratchRoot ?? tmpdir());
  }
}
