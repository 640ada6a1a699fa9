import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { HooksModule } from '../hooks/hooks.module.js';
import { CancelExecution } from './cancel-execution.js';
import { ExecuteSkill } from './execute-skill.js';
import {
  EXECUTIONS_REDIS,
  ExecutionShutdown,
  ExecutionWaiters,
  StreamReaders,
  executionInfrastructure,
} from './execution-infrastructure.js';
import { ExecutionQueries } from './execution-queries.js';
import { ExecutionStream } from './execution-stream.js';
import { ExecutionsController } from './executions.controller.js';
import { ExecutionsGrpcController } from './executions.grpc-controller.js';

@Module({
  imports: [CatalogModule, HooksModule],
  controllers: [ExecutionsController, ExecutionsGrpcController],
  providers: [
    ...executionInfrastructure,
    ExecutionWaiters,
    ExecutionShutdown,
    StreamReaders,
    ExecuteSkill,
    CancelExecution,
    ExecutionStream,
    ExecutionQueries,
  ],
  exports: [ExecuteSkill, CancelExecution, ExecutionStream, ExecutionQueries, EXECUTIONS_REDIS, StreamReaders],
})
export class ExecutionsModule {}
