import { GrpcMethod, Payload } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import { callerKey, peerAddress, type Principal } from '../auth/principal.js';
import { CancelExecution } from './cancel-execution.js';
import { ExecuteSkill } from './execute-skill.js';
import { ExecutionQueries } from './execution-queries.js';
import { ExecutionStream, resumePosition } from './execution-stream.js';
import { parseExecutionId } from './executions.dto.js';
import { presentDeprecation } from '../skills/skill.presenter.js';
import { GrpcCaller, GrpcTraceContext } from '../grpc/grpc-auth.guard.js';
import { GrpcStreamCall } from '../grpc/grpc-stream.js';
import type { TraceContext } from '#observability/index.js';
import { deprecationMessage, withDeprecationTrailers } from '../skills/skills.grpc-messages.js';
import { executionEventMessage, executionMessage, usageMessage } from './executions.grpc-messages.js';
import { required } from '../grpc/grpc-fields.js';
import {
  type ExecuteSkillRequest,
  type ListExecutionsRequest,
  parseExecuteSkill,
  parseListExecutions,
} from './executions.grpc-messages.js';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { GrpcController } from '../grpc/grpc-controller.js';

/** Executions over gRPC: the use-cases behind /v1/skills/{name}/executions, /v1/executions and /usage. */
@GrpcController()
export class ExecutionsGrpcController {
  constructor(
    private readonly executeSkill: ExecuteSkill,
    private readonly cancelExecution: CancelExecution,
    private readonly queries: ExecutionQueries,
    private readonly stream: ExecutionStream,
  ) {}

  @GrpcMethod(GRPC_SERVICE, 'ExecuteSkill')
  async execute(
    @Payload() request: ExecuteSkillRequest,
    @GrpcCaller() principal: Principal,
    @GrpcTraceContext() traceContext: TraceContext,
  ) {
    const { execution, version, created } = await this.executeSkill.execute({
      ...parseExecuteSkill(request),
      caller: principal.identity,
      traceContext,
    });
    return withDeprecationTrailers(
      { execution: executionMessage(execution), deprecation: deprecationMessage(presentDeprecation(version)), created },
      [version],
    );
  }

  @GrpcMethod(GRPC_SERVICE, 'GetExecution')
  async getExecution(@Payload() request: { id?: string }) {
    const { execution, version } = await this.queries.getWithVersion(parseExecutionId(required(request.id, 'id')));
    return withDeprecationTrailers(executionMessage(execution), version ? [version] : []);
  }

  @GrpcMethod(GRPC_SERVICE, 'ListExecutions')
  async listExecutions(@Payload() request: ListExecutionsRequest) {
    const page = await this.queries.list(parseListExecutions(request));
    return { items: page.items.map(executionMessage), next_cursor: page.nextCursor ?? '' };
  }

  @GrpcMethod(GRPC_SERVICE, 'CancelExecution')
  async cancel(@Payload() request: { id?: string }) {
    return executionMessage(await this.cancelExecution.cancel(parseExecutionId(required(request.id, 'id'))));
  }

  @GrpcMethod(GRPC_SERVICE, 'GetUsage')
  async getUsage(@Payload() request: { name?: string }) {
    return usageMessage(await this.queries.usage(required(request.name, 'name')));
  }

  /** Server streaming: the events until the terminal one; a client that goes away stops the Redis reads. */
  @GrpcMethod(GRPC_SERVICE, 'WatchExecution')
  watchExecution(
    @Payload() request: { id?: string; last_event_id?: string },
    @GrpcCaller() principal: Principal,
    @GrpcStreamCall() call: { getPeer?: () => string } | undefined,
  ) {
    const id = parseExecutionId(required(request.id, 'id'));
    const after = resumePosition(request.last_event_id);
    return new Observable<ReturnType<typeof executionEventMessage>>((subscriber) => {
      const controller = new AbortController();
      (async () => {
        const caller = callerKey(principal, peerAddress(call?.getPeer?.()));
        for await (const stored of this.stream.follow(id, after, controller.signal, caller)) subscriber.next(executionEventMessage(stored));
        subscriber.complete();
      })().catch((error: unknown) => subscriber.error(error));
      return () => controller.abort();
    });
  }
}
