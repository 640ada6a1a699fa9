import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { InfrastructureReadiness } from './infrastructure-readiness.js';
import { ExecutionRunner } from '../execution/execution-runner.js';
import { ScriptToolRunner } from '../scripts/script-tool-runner.js';

/**
 * Liveness and readiness of an executor process (database and Redis reachable). Both say whether script
 * tools can run here; that does not make the executor unready, it still serves TypeScript skills.
 */
@Controller()
export class ExecutorHealthController {
  constructor(
    private readonly infrastructure: InfrastructureReadiness,
    private readonly runner: ExecutionRunner,
    private readonly scripts: ScriptToolRunner,
  ) {}

  @Get('healthz')
  liveness() {
    return { status: 'ok', running: this.runner.runningIds().length, script_tools: this.scripts.status() };
  }

  @Get('readyz')
  async readiness() {
    const { database, redis } = await this.infrastructure.check();
    const scriptTools = this.scripts.status();
    if (database !== 'up' || redis !== 'up')
      throw new ServiceUnavailableException({ status: 'error', database, redis, script_tools: scriptTools });
    return { status: 'ok', database, redis, running: this.runner.runningIds().length, script_tools: scriptTools };
  }
}
