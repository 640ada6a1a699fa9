import { basename } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import type { AdapterLogger } from './logger.js';
import type { Program } from './program.js';
import { diagnosticsOf, runProgram } from './run-program.js';
import type { ProgramRun } from './run-program.js';
import { readResultFile, withScratchDir, writeInputFile } from './scratch.js';
import { ToolFailure } from './tool-failure.js';

/** Limits every call of an adapter runs under (from its environment). */
export interface AdapterLimits {
  /** Longest a program may run in one call (`MAX_RUN_SECONDS`). */
  maxRunMs: number;
  /** Most bytes of program output (streams, and each result file) the adapter reads (`MAX_OUTPUT_BYTES`). */
  maxOutputBytes: number;
}

/** What a tool handler gets for one call. */
export interface ToolRunContext {
  /** The call's private scratch directory (removed after the call). */
  readonly scratchDir: string;
  /** Aborts when the MCP request is cancelled or the client goes away. */
  readonly signal: AbortSignal;
  readonly limits: AdapterLimits;
  /** Write an input file given as contents in the parameters, under a checked relative name. */
  writeInput(name: string, contents: string, what?: string): Promise<string>;
  /** Read a file the program wrote (null when missing), within the output limit. */
  readResult(name: string): Promise<string | null>;
  /**
   * Run the tool's program in the scratch directory. Timeout, cancellation, output overflow and a failed start
   * throw ToolFailure; any other outcome (including a non-zero exit) is returned for the handler to judge.
   */
  run(args: string[], options?: { timeoutMs?: number; env?: Record<string, string> }): Promise<ProgramRun>;
}

/** A tool as an adapter defines it: schemas with a description on every property, and the handler. */
export interface AdapterToolDefinition<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** What the tool does, in the catalog's vocabulary (`stress_analysis`, `circuit_simulation`, ...). */
  capability: string;
  /** The kind of tool (seed 001 §3.2): `computation` (a solver run), `verification` (a rules check), `conversion` (an export). */
  category: ToolCategory;
  /** Whether a second call with the same input is harmless (seed 001 §3.2 `idempotent`). Default true: each call has its own scratch directory and changes nothing outside it. */
  idempotent?: boolean;
  /** A feature flag the caller's platform must enable (`FEATURE_FLAGS`) for the tool to be called; without it the bridge answers `{ disabled: true, reason }`. */
  requiresFeatureFlag?: string;
  program: Program;
  inputSchema: I;
  outputSchema: O;
  /** Optional per-call time limit in seconds, read from the input (capped by the adapter's limit). */
  timeoutSecondsOf?: (input: z.output<I>) => number | undefined;
  handler(input: z.output<I>, context: ToolRunContext): Promise<z.output<O>>;
}

/** Seed 001 §3.2's tool categories, as this project's adapters use them. */
type ToolCategory = 'computation' | 'verification' | 'conversion';

/** A defined tool with its types erased, ready to register on any server instance. */
export interface AdapterTool {
  name: string;
  title: string;
  description: string;
  capability: string;
  category: ToolCategory;
  idempotent: boolean;
  requiresFeatureFlag: string | null;
  program: Program;
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject;
  execute(input: unknown, signal: AbortSignal, limits: AdapterLimits, logger: AdapterLogger): Promise<CallToolResult>;
}

/** Define a tool; the returned object runs each call in a fresh scratch directory and shapes the MCP result. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(definition: AdapterToolDefinition<I, O>): AdapterTool {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    capability: definition.capability,
    category: definition.category,
    idempotent: definition.idempotent ?? true,
    requiresFeatureFlag: definition.requiresFeatureFlag ?? null,
    program: definition.program,
    inputSchema: definition.inputSchema,
    outputSchema: definition.outputSchema,
    async execute(rawInput, signal, limits, logger) {
      // The MCP server validated rawInput against inputSchema before calling us.
      const input = rawInput as z.output<I>;
      const started = performance.now();
      try {
        const status = await definition.program.probe();
        if (!status.found || !status.path) throw new ToolFailure('PROGRAM_NOT_INSTALLED', definition.program.missingMessage);
        const programPath = status.path;
        const requested = definition.timeoutSecondsOf?.(input);
        const callTimeoutMs = Math.min(limits.maxRunMs, requested !== undefined ? requested * 1000 : limits.maxRunMs);
        const output = await withScratchDir(
          `${basename(definition.program.spec.executable).replace(/\W/g, '')}-${definition.name}`,
          (scratchDir) =>
            definition.handler(input, {
              scratchDir,
              signal,
              limits,
              writeInput: (name, contents, what) => writeInputFile(scratchDir, name, contents, what),
              readResult: (name) => readResultFile(scratchDir, name, limits.maxOutputBytes),
              run: (args, options = {}) =>
                runChecked(definition.program, programPath, args, {
                  cwd: scratchDir,
                  timeoutMs: Math.min(callTimeoutMs, options.timeoutMs ?? callTimeoutMs),
                  maxOutputBytes: limits.maxOutputBytes,
                  signal,
                  env: options.env,
                }),
            }),
        );
        logger.info('tool call completed', { tool: definition.name, ok: true, durationMs: Math.round(performance.now() - started) });
        return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output as Record<string, unknown> };
      } catch (error) {
        const failure =
          error instanceof ToolFailure
            ? error
            : new ToolFailure('INTERNAL', `the adapter failed: ${error instanceof Error ? error.message : String(error)}`);
        logger.info('tool call failed', {
          tool: definition.name,
          ok: false,
          code: failure.code,
          reason: failure.message,
          durationMs: Math.round(performance.now() - started),
        });
        return failureResult(failure);
      }
    },
  };
}

async function runChecked(
  program: Program,
  programPath: string,
  args: string[],
  options: { cwd: string; timeoutMs: number; maxOutputBytes: number; signal: AbortSignal; env?: Record<string, string> },
): Promise<ProgramRun> {
  const run = await runProgram({ command: programPath, args, ...options });
  const name = program.spec.name;
  if (run.spawnError) throw new ToolFailure('PROGRAM_FAILED', `${name} could not be started: ${run.spawnError}`);
  if (run.cancelled) throw new ToolFailure('CANCELLED', `${name} was stopped because the request was cancelled`, diagnosticsOf(run));
  if (run.timedOut) {
    throw new ToolFailure(
      'PROGRAM_TIMEOUT',
      `${name} did not finish within ${Math.round(options.timeoutMs / 100) / 10} s and was killed`,
      diagnosticsOf(run),
    );
  }
  if (run.outputLimitExceeded) {
    throw new ToolFailure(
      'OUTPUT_LIMIT',
      `${name} wrote more than ${options.maxOutputBytes} bytes of output and was killed (MAX_OUTPUT_BYTES)`,
      diagnosticsOf(run),
    );
  }
  return run;
}

/** The isError result of a failed call: the message (and the program's last lines) as text, and structured. */
function failureResult(failure: ToolFailure): CallToolResult {
  const text = [failure.message];
  const diagnostics = failure.diagnostics;
  if (diagnostics) {
    text.push(`exit code: ${diagnostics.exit_code ?? 'none'}${diagnostics.signal ? ` (signal ${diagnostics.signal})` : ''}`);
    if (diagnostics.stderr_tail.length > 0) text.push('stderr (last lines):', ...diagnostics.stderr_tail);
    if (diagnostics.stdout_tail.length > 0) text.push('stdout (last lines):', ...diagnostics.stdout_tail);
  }
  return {
    isError: true,
    content: [{ type: 'text', text: text.join('\n') }],
    structuredContent: { error: { code: failure.code, message: failure.message, ...(diagnostics ? { diagnostics } : {}) } },
  };
}
