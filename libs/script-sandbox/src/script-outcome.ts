import { constants } from 'node:os';
import type { SkillErrorCode } from '@skill-registry/sdk';
import { parseStrictJson } from '#contracts/strict-json.js';
import type { RunEnd } from './process-supervisor.js';

/** An error in the executor's shape (`ExecutionError` of libs/executions). */
export interface ScriptError {
  code: SkillErrorCode;
  message: string;
  details: Record<string, unknown>;
}

/** The result of one script run: its JSON object, or an error the executor stores as is. */
export type ScriptOutcome =
  | { ok: true; output: Record<string, unknown>; stderrTail: string; durationMs: number }
  | { ok: false; error: ScriptError; durationMs: number };

/** Marks a HANDLER_ERROR caused by too much stdout (the executor's codes have no own code for it). */
export const OUTPUT_TOO_LARGE = 'OUTPUT_TOO_LARGE';

export interface EndContext {
  script: string;
  timeoutMs: number;
  cancelGraceMs: number;
  maxStdoutBytes: number;
  /** bwrap reports a script killed by signal n as exit code 128 + n. */
  exitCodeCarriesSignal: boolean;
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));
const STDOUT_HEAD_CHARS = 200;

/** Turns how the process ended into the run's outcome (without duration). */
export function outcomeOfEnd(
  end: RunEnd,
  context: EndContext,
): { ok: true; output: Record<string, unknown> } | { ok: false; error: ScriptError } {
  const stderrTail = end.stderrTail;
  switch (end.kind) {
    case 'spawn_failed':
      return failure('HANDLER_ERROR', `Script '${context.script}' could not be started: ${end.spawnError?.message}`, {});
    case 'timeout':
      return failure('HANDLER_TIMEOUT', `Script '${context.script}' did not finish within ${context.timeoutMs} ms and was killed`, {
        timeout_ms: context.timeoutMs,
        stderr_tail: stderrTail,
      });
    case 'cancelled':
      return failure('CANCELLED', `Execution cancelled; script '${context.script}' was stopped`, {
        grace_ms: context.cancelGraceMs,
        stderr_tail: stderrTail,
      });
    case 'output_too_large':
      return failure(
        'HANDLER_ERROR',
        `Script '${context.script}' printed more than ${context.maxStdoutBytes} bytes to stdout and was killed`,
        {
          reason: OUTPUT_TOO_LARGE,
          limit_bytes: context.maxStdoutBytes,
          stderr_tail: stderrTail,
        },
      );
    case 'exited':
      return outcomeOfExit(end, context);
  }
}

function outcomeOfExit(
  end: RunEnd,
  context: EndContext,
): { ok: true; output: Record<string, unknown> } | { ok: false; error: ScriptError } {
  const stderrTail = end.stderrTail;
  if (end.exitCode !== 0) {
    const signal = end.signal ?? signalOfExitCode(end.exitCode, context.exitCodeCarriesSignal);
    const status = end.signal ? `was killed by ${end.signal}` : `exited with code ${end.exitCode}`;
    return failure('HANDLER_ERROR', `Script '${context.script}' ${status}`, {
      exit_code: end.exitCode,
      ...(signal ? { signal } : {}),
      stderr_tail: stderrTail,
    });
  }
  const text = end.stdout.toString('utf8').trim();
  const badOutput = (problem: string) =>
    failure('HANDLER_ERROR', `Script '${context.script}' must print one JSON object on stdout: ${problem}`, {
      exit_code: 0,
      stdout_head: text.slice(0, STDOUT_HEAD_CHARS),
      stderr_tail: stderrTail,
    });
  if (text === '') return badOutput('it printed nothing');
  let output: unknown;
  try {
    output = parseStrictJson(end.stdout);
  } catch (error) {
    return badOutput((error as Error).message);
  }
  if (output === null || typeof output !== 'object' || Array.isArray(output)) {
    return badOutput(`it printed ${output === null ? 'null' : Array.isArray(output) ? 'an array' : `a ${typeof output}`}`);
  }
  return { ok: true, output: output as Record<string, unknown> };
}

function signalOfExitCode(exitCode: number | null, carriesSignal: boolean): string | null {
  if (!carriesSignal || exitCode === null || exitCode <= 128) return null;
  return SIGNAL_NAMES.get(exitCode - 128) ?? null;
}

function failure(code: SkillErrorCode, message: string, details: Record<string, unknown>): { ok: false; error: ScriptError } {
  return { ok: false, error: { code, message, details } };
}
