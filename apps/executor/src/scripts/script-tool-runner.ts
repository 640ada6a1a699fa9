import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { RunContract, StoredScriptTool } from '#contracts/index.js';
import type { ExecutableVersion, ExecutionError, ExecutionRecord } from '#executions/index.js';
import { PackageCache } from '#package-store/index.js';
import { ScriptSandboxUnavailable, ScriptSandbox, type IsolationMode, type RUN_VARIABLES } from '#script-sandbox/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';
import { packageCacheBlocked } from './package-cache-root.js';

/** What one attempt's handler produced: its output, or the error the execution records. */
export type HandlerOutcome = { ok: true; output: Record<string, unknown> } | { ok: false; error: ExecutionError };

/** Whether script tools can run on this executor, for the log at start and the health endpoint. */
export interface ScriptToolsStatus {
  isolation: IsolationMode;
  available: boolean;
  /** Why not (names the Debian package and the opt-out), null when available. */
  reason: string | null;
}

/**
 * Runs the handler of an Agent Skills execution: the tool's script, in the ScriptSandbox, from the
 * package materialised out of the store. The attempt around it (retries, cancellation, events,
 * heartbeats, takeover) is ExecutionRunner's, the same as for TypeScript skills; so is the output check.
 */
@Injectable()
export class ScriptToolRunner implements OnModuleInit {
  private readonly logger = new Logger('ScriptTools');
  private current: ScriptToolsStatus;

  constructor(
    private readonly sandbox: ScriptSandbox,
    private readonly packages: PackageCache,
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
  ) {
    this.current = { isolation: config.SCRIPT_SANDBOX, available: false, reason: 'not checked yet' };
  }

  /** Checks once at start whether scripts can run and says so; the executor starts either way. */
  async onModuleInit(): Promise<void> {
    const status = await this.check();
    if (!status.available) this.logger.warn(`script tools cannot run (TypeScript skills are not affected): ${status.reason}`);
    else if (status.isolation === 'none') this.logger.warn('script tools run WITHOUT isolation (SCRIPT_SANDBOX=none, operator opt-out)');
    else this.logger.log('script tools can run (bubblewrap isolation)');
  }

  status(): ScriptToolsStatus {
    return { ...this.current };
  }

  async run(execution: ExecutionRecord, version: ExecutableVersion, contract: RunContract, signal: AbortSignal): Promise<HandlerOutcome> {
    const tool = contract.tool;
    if (!tool) {
      return failure('HANDLER_ERROR', `${version.name} ${version.version} is an Agent Skills version without tools: nothing to run`);
    }
    // The input was checked once against this tool's stored schema, by the registry before the execution existed
    // (ExecuteSkill); the output is checked once, by HandlerAttempt, for scripts and TypeScript handlers alike.
    return this.runTool(execution, version, tool, execution.input, contract.timeoutSeconds * 1000, signal);
  }

  /**
   * One run of `tool`'s script on `input`, in the sandbox, from the package materialised out of the store: an
   * execution's tool, or one step of a workflow (WorkflowRunner). Only the bytes the registry stored run.
   */
  async runTool(
    execution: ExecutionRecord,
    version: ExecutableVersion,
    tool: StoredScriptTool,
    input: Record<string, unknown>,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<HandlerOutcome> {
    if (!tool.script) {
      const reason = tool.not_executable_reason ?? 'it has no script';
      return failure('PRECONDITION_FAILED', `Tool '${tool.name}' of ${version.name} ${version.version} cannot run here: ${reason}`, {
        tool: tool.name,
        not_executable_reason: tool.not_executable_reason,
      });
    }
    // Re-checked while unavailable: installing bubblewrap or fixing the cache directory needs no restart.
    const status = this.current.available ? this.current : await this.check();
    if (!status.available) return failure('PRECONDITION_FAILED', status.reason as string, { tool: tool.name, isolation: status.isolation });
    const packageDir = await this.packages.directory(version.contentHash);
    const env: Record<(typeof RUN_VARIABLES)[number], string> = {
      SKILL_NAME: version.name,
      SKILL_VERSION: version.version,
      SKILL_TOOL: tool.name,
      EXECUTION_ID: execution.id,
    };
    try {
      const outcome = await this.sandbox.run({
        packageDir,
        script: tool.script.path,
        input,
        timeoutMs,
        signal,
        cancelGraceMs: this.config.CANCEL_GRACE_MS,
        env,
      });
      if (!outcome.ok) return { ok: false, error: outcome.error };
      if (outcome.stderrTail) this.logger.debug(`[${version.name} ${tool.name} ${execution.id}] stderr: ${outcome.stderrTail}`);
      return { ok: true, output: outcome.output };
    } catch (error) {
      if (!(error instanceof ScriptSandboxUnavailable)) throw error;
      this.current = { isolation: this.config.SCRIPT_SANDBOX, available: false, reason: error.message };
      return failure('PRECONDITION_FAILED', error.message, { tool: tool.name, isolation: this.config.SCRIPT_SANDBOX });
    }
  }

  private async check(): Promise<ScriptToolsStatus> {
    const isolation = this.config.SCRIPT_SANDBOX;
    let reason: string | null = null;
    try {
      // Scripts run as nobody only under bubblewrap with a root executor; otherwise as this process, which owns the cache.
      if (isolation === 'bubblewrap' && process.getuid?.() === 0) reason = await packageCacheBlocked(this.config.PACKAGE_CACHE_DIR);
      if (reason === null) await this.sandbox.ready();
    } catch (error) {
      // Whatever stands in the way (also an unreadable directory), the executor goes on serving TypeScript skills.
      reason = (error as Error).message;
    }
    this.current = { isolation, available: reason === null, reason };
    return this.current;
  }
}

export function failure(code: ExecutionError['code'], message: string, details: Record<string, unknown> = {}): HandlerOutcome {
  return { ok: false, error: { code, message, details } };
}
