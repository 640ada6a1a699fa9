import { runContractOf, type RunContract, type StoredScriptTool, type StoredWorkflow } from '#contracts/index.js';
import type { ExecutableVersion, ExecutionEvent, ExecutionRecord } from '#executions/index.js';
import type { HandlerOutcome, ScriptToolRunner } from './script-tool-runner.js';
import { WorkflowRunner } from './workflow-runner.js';

function tool(name: string, input: Record<string, unknown>, output: Record<string, unknown> | null, timeoutSeconds = 20): StoredScriptTool {
  return {
    name,
    qualified_name: `geo__${name}`,
    description: name,
    input_schema: input,
    output_schema: output,
    read_only: false,
    destructive: false,
    idempotent: true,
    timeout_seconds: timeoutSeconds,
    retries: 0,
    search_aliases: [],
    next_tools: { on_success: [], on_failure: [] },
    annotations: {},
    examples: [],
    script: { path: `scripts/${name}.py`, interpreter: 'python3' },
    not_executable_reason: null,
  };
}

const CREATE = tool(
  'create_sphere',
  {
    type: 'object',
    required: ['radius'],
    properties: { radius: { type: 'number' }, name: { type: 'string' } },
    additionalProperties: false,
  },
  { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
);
const BEVEL = tool(
  'bevel_edges',
  { type: 'object', required: ['mesh', 'segments'], properties: { mesh: { type: 'string' }, segments: { type: 'integer' } } },
  null,
  5,
);

const WORKFLOW: StoredWorkflow = {
  name: 'sphere_then_bevel',
  qualified_name: 'geo__sphere_then_bevel',
  description: 'two steps',
  input_schema: {
    type: 'object',
    required: ['radius'],
    properties: { radius: { type: 'number' }, segments: { type: 'integer', default: 2 } },
    additionalProperties: false,
  },
  steps: [
    { id: 'create', tool: 'create_sphere', args: { radius: '{{inputs.radius}}', name: 'ball_{{inputs.radius}}' } },
    { id: 'bevel', tool: 'bevel_edges', args: { mesh: '{{steps.create.output.name}}', segments: '{{inputs.segments}}' } },
  ],
  timeout_seconds: 25,
  idempotent: true,
  retries: 0,
  not_executable_reason: null,
};

const version = {
  name: 'geo',
  version: '1.0.0',
  format: 'agent-skills',
  tools: [CREATE, BEVEL],
  workflows: [WORKFLOW],
  contentHash: `sha256:${'2'.repeat(64)}`,
} as unknown as ExecutableVersion;

/** A workflow run over a fake script runner that answers each tool with `answers[tool]` and records its calls. */
async function runWorkflow(input: Record<string, unknown>, answers: Record<string, (args: Record<string, unknown>) => HandlerOutcome>) {
  const calls: { tool: string; args: Record<string, unknown>; timeoutMs: number }[] = [];
  const events: ExecutionEvent[] = [];
  const scripts = {
    runTool: async (
      _execution: unknown,
      _version: unknown,
      stepTool: StoredScriptTool,
      args: Record<string, unknown>,
      timeoutMs: number,
    ) => {
      calls.push({ tool: stepTool.name, args, timeoutMs });
      return (answers[stepTool.name] as (args: Record<string, unknown>) => HandlerOutcome)(args);
    },
  } as unknown as ScriptToolRunner;
  const contract = runContractOf(version, 'sphere_then_bevel') as RunContract & { workflow: StoredWorkflow };
  const execution = { id: 'e-1', input } as ExecutionRecord;
  const outcome = await new WorkflowRunner(scripts).run(execution, version, contract, new AbortController().signal, (event) =>
    events.push(event),
  );
  return { outcome, calls, events };
}

const ok = (output: Record<string, unknown>): HandlerOutcome => ({ ok: true, output });

describe('WorkflowRunner', () => {
  it("maps each step's arguments from the input (defaults filled in) and earlier outputs, and answers the last output and every step's", async () => {
    const { outcome, calls, events } = await runWorkflow(
      { radius: 1.5 },
      { create_sphere: (args) => ok({ name: args.name as string }), bevel_edges: (args) => ok({ beveled: args.mesh }) },
    );
    expect(calls).toEqual([
      { tool: 'create_sphere', args: { radius: 1.5, name: 'ball_1.5' }, timeoutMs: 20_000 },
      // A step gets the smaller of its tool's timeout and what is left of the workflow's 25 s.
      { tool: 'bevel_edges', args: { mesh: 'ball_1.5', segments: 2 }, timeoutMs: 5_000 },
    ]);
    expect(outcome).toEqual({
      ok: true,
      output: { output: { beveled: 'ball_1.5' }, steps: { create: { name: 'ball_1.5' }, bevel: { beveled: 'ball_1.5' } } },
    });
    expect(events).toEqual([
      { type: 'step_started', at: expect.any(String), step: 'create', tool: 'create_sphere', index: 0 },
      {
        type: 'step_completed',
        at: expect.any(String),
        step: 'create',
        tool: 'create_sphere',
        index: 0,
        duration_ms: expect.any(Number),
        ok: true,
      },
      { type: 'step_started', at: expect.any(String), step: 'bevel', tool: 'bevel_edges', index: 1 },
      {
        type: 'step_completed',
        at: expect.any(String),
        step: 'bevel',
        tool: 'bevel_edges',
        index: 1,
        duration_ms: expect.any(Number),
        ok: true,
      },
    ]);
  });

  it('ends at the first step that fails, with its error naming the step; later steps never run', async () => {
    const { outcome, calls, events } = await runWorkflow(
      { radius: 1 },
      { create_sphere: () => ({ ok: false, error: { code: 'HANDLER_ERROR', message: 'exit code 3', details: { exit_code: 3 } } }) },
    );
    expect(calls.map((call) => call.tool)).toEqual(['create_sphere']);
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'HANDLER_ERROR',
        message: "Step 'create' of workflow 'sphere_then_bevel' failed: exit code 3",
        details: { exit_code: 3, workflow: 'sphere_then_bevel', step: 'create', tool: 'create_sphere' },
      },
    });
    expect(events.map((event) => [event.type, 'ok' in event ? event.ok : null])).toEqual([
      ['step_started', null],
      ['step_completed', false],
    ]);
  });

  it("refuses a step output that breaks its tool's output schema before a later step reads it", async () => {
    const { outcome, calls } = await runWorkflow({ radius: 1 }, { create_sphere: () => ok({ label: 'x' }) });
    expect(calls).toHaveLength(1);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'OUTPUT_INVALID', details: { step: 'create', tool: 'create_sphere' } } });
  });

  it("does not run a step whose mapped arguments break its tool's input schema", async () => {
    // An input of the wrong type passes through a whole-string reference as it is; bevel_edges refuses it.
    const bad = await runWorkflow({ radius: 1, segments: 'two' }, { create_sphere: () => ok({ name: 'ball' }) });
    expect(bad.calls.map((call) => call.tool)).toEqual(['create_sphere']);
    expect(bad.outcome).toMatchObject({
      ok: false,
      error: { code: 'INPUT_INVALID', details: { step: 'bevel', violations: [expect.objectContaining({ pointer: '/segments' })] } },
    });
  });
});
