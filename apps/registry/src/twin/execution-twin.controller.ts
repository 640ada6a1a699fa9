import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { TwinUseCases } from './twin-use-cases.js';
import { executionIdParam, parseExecutionId } from '../executions/executions.dto.js';
import { ApiJson, ApiProblems } from '../openapi/api-decorators.js';
import { inlineSchema } from '../openapi/openapi-components.js';
import { type ExecutionTwinAccessWire, executionTwinAccessView } from './twin.views.js';
import { presentExecutionTwinAccess } from './twin.presenter.js';

/** An execution's provenance in the twin: the revisions it read and the ones it wrote. */
@ApiTags('twin')
@Controller('v1/executions')
export class ExecutionTwinController {
  constructor(private readonly useCases: TwinUseCases) {}

  @Get(':id/twin')
  @ApiOperation({
    summary:
      'The twin revisions an execution read and wrote (provenance), on its branch: content and constraints revisions read, revisions written',
  })
  @ApiParam({ name: 'id', schema: inlineSchema(executionIdParam), description: 'The execution id' })
  @ApiJson(200, executionTwinAccessView, { description: 'What the execution read and wrote' })
  @ApiProblems('EXECUTION_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async access(@Param('id') rawId: string): Promise<ExecutionTwinAccessWire> {
    const { execution, access } = await this.useCases.executionAccess(parseExecutionId(rawId));
    return presentExecutionTwinAccess(execution, access);
  }
}
