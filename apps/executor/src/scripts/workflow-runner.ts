import { Injectable } from '@nestjs/common';
import {
  JsonSchemaValidator,
  WorkflowReferenceUnresolved,
  renderArguments,
  workflowInputs,
  type RunContract,
  type StoredWorkflow,
} from '#contracts/index.js';
import type { ExecutableVersion, ExecutionEvent, ExecutionRecord } from '#executions/index.js';
import { ScriptToolRunner, failure, type HandlerOutcome } from './script-tool-runner.js';

/** What a workflow run tells its execution's event stream (the attempt's publisher, in order). */
export type StepEventSink = (event: ExecutionEvent) => void;

/**
 * Runs a workflow of an Agent Skills package (seed 004 `workflows/`) as the handler of one execution: its steps in
 * order, each one script tool run in the sandbox with the arguments rendered from the workflow's input and earlier
 * steps' outputs, checked against the tool's input schema before it runs and its output schema after. Each step is a
 * `step_started` and a `step_completed` event on the execution's stream; the first step that fails ends the
 * workflow with its error (naming the step). The whole run shares the workflow's timeout: a step gets the smaller of
 * its tool's timeout and what is left. The execution's output is the last step's output and every step's by id.
 */
@Injectable()
export class WorkflowRunner {
  private readonly validator = new JsonSchemaValidator();

  constructor(private readonly scripts: ScriptToolRunner) {}

  async run(
    execution: ExecutionRecord,
    version: ExecutableVersion,
    contract: RunContract & { workflow: StoredWorkflow },
    signal: AbortSignal,
    emit: StepEventSink,
  ): Promise<HandlerOutcome> {
    const { workflow } = contract;
    const inputs = workflowInputs(workflow, execution.input);
    const outputs: Record<string, Record<string, unknown>> = {};
    const deadline = Date.now() + contract.timeoutSeconds * 1000;
    let last: Record<string, unknown> = {};
    for (const [index, step] of workflow.steps.entries()) {
      const where = { workflow: workflow.name, step: step.id, tool: step.tool };
      const tool = version.tools.find((candidate) => candidate.name === step.tool);
      if (!tool)
        return failure(
          'PRECONDITION_FAILED',
          `Step '${step.id}' of workflow '${workflow.name}' names tool '${step.tool}', which ${version.name} ${version.version} does not have`,
          where,
        );
      let args: Record<string, unknown>;
      try {
        args = renderArguments(step.args, { inputs, outputs });
      } catch (error) {
        if (!(error instanceof WorkflowReferenceUnresolved)) throw error;
        return failure('INPUT_INVALID', `Step '${step.id}' of workflow '${workflow.name}': ${error.message}`, {
          ...where,
          reference: error.expression,
        });
      }
      const violations = this.validator.validate(tool.input_schema, args);
      if (violations.length > 0) {
        return failure(
          'INPUT_INVALID',
          `Step '${step.id}' of workflow '${workflow.name}': the arguments mapped for tool '${tool.name}' do not match its input schema`,
          { ...where, violations },
        );
      }
      const left = deadline - Date.now();
      if (left <= 0)
        return failure(
          'HANDLER_TIMEOUT',
          `Workflow '${workflow.name}' ran out of its ${contract.timeoutSeconds} s before step '${step.id}'`,
          where,
        );
      const started = Date.now();
      emit({ type: 'step_started', at: new Date(started).toISOString(), step: step.id, tool: tool.name, index });
      const outcome = await this.scripts.runTool(execution, version, tool, args, Math.min(tool.timeout_seconds * 1000, left), signal);
      const stepOutcome = outcome.ok ? this.checkOutput(tool.output_schema, outcome.output, workflow.name, step.id, tool.name) : outcome;
      emit({
        type: 'step_completed',
        at: new Date().toISOString(),
        step: step.id,
        tool: tool.name,
        index,
        duration_ms: Date.now() - started,
        ok: stepOutcome.ok,
        ...(stepOutcome.ok ? {} : { error: stepOutcome.error }),
      });
      if (!stepOutcome.ok) {
        const { error } = stepOutcome;
        return {
          ok: false,
          error: {
            ...error,
            message: `Step '${step.id}' of workflow '${workflow.name}' failed: ${error.message}`,
            details: { ...error.details, ...where },
          },
        };
      }
      outputs[step.id] = stepOutcome.output;
      last = stepOutcome.output;
    }
    return { ok: true, output: { output: last, steps: outputs } };
  }

  /** A step's output against its tool's stored output schema: a later step may rely on what the schema promises. */
  private checkOutput(
    schema: Record<string, unknown> | null,
    output: Record<string, unknown>,
    workflow: string,
    step: string,
    tool: string,
  ): HandlerOutcome {
    const violations = schema ? this.validator.validate(schema, output) : [];
    if (violations.length === 0) return { ok: true, output };
    return failure('OUTPUT_INVALID', `the output of tool '${tool}' does not match its output schema`, { workflow, step, tool, violations });
  }
}
