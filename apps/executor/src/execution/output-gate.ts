import type { SchemaViolation } from '#contracts/index.js';
import type { HandlerOutcome } from '../scripts/script-tool-runner.js';

/** One try whose result the gate refused: its number (1, 2, …), what was wrong, and whether the gate asks again. */
export interface GateRejection {
  try: number;
  errors: Record<string, unknown>[];
  reask: boolean;
}

export interface OutputGateOptions {
  /** How many tries the gate may ask for: 1, plus `max_retries_per_gate` for an idempotent skill. */
  maxTries: number;
  /** The attempt's whole time (timeout_seconds): no try starts that could not end within it. */
  budgetMs: number;
  signal: AbortSignal;
  now?: () => number;
}

/**
 * Seed 001 §2.3, the output gate that re-asks: a result that fails output validation (the stored
 * JSON Schema here, or the handler's own schema inside its sandbox, which reports OUTPUT_INVALID) is
 * asked for again, up to `maxTries` in all, each refusal reported; a try starts only while at least as
 * much of the budget is left as the last try took, and gets only what is left. The final refusal is
 * OUTPUT_INVALID with the last try's errors and, when the gate could re-ask, every try's.
 */
export async function throughOutputGate(
  produce: (timeoutMs: number) => Promise<HandlerOutcome>,
  violationsOf: (output: Record<string, unknown>) => SchemaViolation[],
  rejected: (rejection: GateRejection) => void,
  options: OutputGateOptions,
): Promise<HandlerOutcome> {
  const now = options.now ?? Date.now;
  const deadline = now() + options.budgetMs;
  const tries: { try: number; errors: Record<string, unknown>[] }[] = [];
  for (let attempt = 1; ; attempt++) {
    const started = now();
    const outcome = await produce(Math.max(1, deadline - started));
    const errors = refusal(outcome, violationsOf);
    if (errors === null) return outcome;
    tries.push({ try: attempt, errors });
    const tookMs = now() - started;
    const reask = attempt < options.maxTries && !options.signal.aborted && deadline - now() >= tookMs;
    if (options.maxTries > 1) rejected({ try: attempt, errors, reask });
    if (reask) continue;
    const message = outcome.ok ? 'The handler output does not match the output schema' : outcome.error.message;
    return {
      ok: false,
      error: {
        code: 'OUTPUT_INVALID',
        message: tries.length > 1 ? `${message} (asked ${tries.length} times)` : message,
        details: options.maxTries > 1 ? { errors, tries } : { errors },
      },
    };
  }
}

/** What the gate refuses in an outcome, or null when it passes (a valid output, or another failure). */
function refusal(outcome: HandlerOutcome, violationsOf: (output: Record<string, unknown>) => SchemaViolation[]) {
  if (!outcome.ok) {
    if (outcome.error.code !== 'OUTPUT_INVALID') return null;
    const errors = outcome.error.details.errors;
    return Array.isArray(errors) ? (errors as Record<string, unknown>[]) : [];
  }
  const violations = violationsOf(outcome.output);
  return violations.length > 0 ? violations.map((violation) => ({ ...violation })) : null;
}
