import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import { InfrastructureReadiness } from './infrastructure-readiness.js';
import { RunningAttempts } from '../execution/running-attempts.js';
import { ScriptToolRunner } from '../scripts/script-tool-runner.js';
import { HandlerSandboxPool } from '#handler-sandbox/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';

/**
 * Liveness and readiness of an executor process (database and Redis reachable). Both say whether script
 * tools and TypeScript handlers can run isolated here (`handler_sandbox`, `script_tools`); that does not
 * make the executor unready: what cannot run fails PRECONDITION_FAILED with the reason.
 */
@Controller()
export class ExecutorHealthController {
  constructor(
    private readonly infrastructure: InfrastructureReadiness,
    private readonly running: RunningAttempts,
    private readonly scripts: ScriptToolRunner,
    private readonly sandbox: HandlerSandboxPool,
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
  ) {}

  private handlerSandbox() {
    return { isolation: this.config.HANDLER_SANDBOX, ...this.sandbox.status() };
  }

  @Get('healthz')
  liveness() {
    return {
      status: 'ok',
      running: this.running.ids().length,
      handler_sandbox: this.handlerSandbox(),
      script_tools: this.scripts.status(),
    };
  }

  @Get('readyz')
  async readiness() {
    const { database, redis } = await this.infrastructure.check();
    const scriptTools = this.scripts.status();
    if (database !== 'up' || redis !== 'up')
      throw new ServiceUnavailableException({
        status: 'error',
        database,
        redis,
        handler_sandbox: this.handlerSandbox(),
        script_tools: scriptTools,
      });
    return {
      status: 'ok',
      database,
      redis,
      running: this.running.ids().length,
      handler_sandbox: this.handlerSandbox(),
      script_tools: scriptTools,
    };
  }
}
