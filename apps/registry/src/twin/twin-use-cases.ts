import { Injectable } from '@nestjs/common';
import { TwinStore } from '#twin/index.js';
import type { ExecutionRecord } from '#executions/index.js';
import type { Principal } from '../auth/principal.js';
import { ExecutionQueries } from '../executions/execution-queries.js';

/** The twin's use-cases that take more than one store call, shared by REST and gRPC. */
@Injectable()
export class TwinUseCases {
  constructor(
    private readonly twin: TwinStore,
    private readonly executions: ExecutionQueries,
  ) {}

  /** Writes a work product's constraints on a branch, and gives the product as it is after the write. */
  async setConstraints(id: string, branch: string, constraints: unknown, principal: Principal) {
    const written = await this.twin.setConstraints(id, branch, constraints, principal);
    return { product: await this.twin.require(id, branch), written };
  }

  /** An execution with what it read and wrote in the twin (its provenance). */
  async executionAccess(id: string): Promise<{ execution: ExecutionRecord; access: Awaited<ReturnType<TwinStore['accessOf']>> }> {
    const execution = await this.executions.get(id);
    return { execution, access: await this.twin.accessOf(execution.id) };
  }
}
