import { describe, expect, it } from '@jest/globals';
import type { HandlerOutcome } from '../scripts/script-tool-runner.js';
import { throughOutputGate, type GateRejection } from './output-gate.js';

const valid: HandlerOutcome = { ok: true, output: { n: 1 } };
const schemaBreaking: HandlerOutcome = { ok: true, output: { n: 'one' } };
const zodRefused: HandlerOutcome = {
  ok: false,
  error: {
    code: 'OUTPUT_INVALID',
    message: 'The handler returned output that does not match its output schema',
    details: { errors: [{ path: 'n' }] },
  },
};
const violationsOf = (output: Record<string, unknown>) =>
  typeof output.n === 'number' ? [] : [{ pointer: '/n', message: 'must be number' }];

/** A handler that answers `outcomes` in turn, each taking `tookMs` on a fake clock. */
function handler(outcomes: HandlerOutcome[], tookMs = 10) {
  let clock = 0;
  const budgets: number[] = [];
  return {
    budgets,
    now: () => clock,
    produce: async (timeoutMs: number) => {
      budgets.push(timeoutMs);
      clock += tookMs;
      return outcomes[Math.min(budgets.length - 1, outcomes.length - 1)]!;
    },
  };
}

async function gate(outcomes: HandlerOutcome[], options: { maxTries: number; budgetMs?: number; tookMs?: number; aborted?: boolean }) {
  const fake = handler(outcomes, options.tookMs);
  const rejections: GateRejection[] = [];
  const controller = new AbortController();
  if (options.aborted) controller.abort();
  const outcome = await throughOutputGate(fake.produce, violationsOf, (rejection) => rejections.push(rejection), {
    maxTries: options.maxTries,
    budgetMs: options.budgetMs ?? 1000,
    signal: controller.signal,
    now: fake.now,
  });
  return { outcome, rejections, budgets: fake.budgets };
}

describe('the output gate', () => {
  it('with no re-asks (the default) answers once, as before: OUTPUT_INVALID with the errors, and no event', async () => {
    const { outcome, rejections, budgets } = await gate([schemaBreaking, valid], { maxTries: 1 });
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'OUTPUT_INVALID',
        message: 'The handler output does not match the output schema',
        details: { errors: [{ pointer: '/n', message: 'must be number' }] },
      },
    });
    expect(rejections).toEqual([]);
    expect(budgets).toEqual([1000]);
  });

  it('asks again after an invalid result and passes the first valid one, each refusal reported', async () => {
    const { outcome, rejections, budgets } = await gate([schemaBreaking, zodRefused, valid], { maxTries: 3 });
    expect(outcome).toEqual(valid);
    expect(rejections).toEqual([
      { try: 1, errors: [{ pointer: '/n', message: 'must be number' }], reask: true },
      { try: 2, errors: [{ path: 'n' }], reask: true },
    ]);
    // Each try gets what is left of the attempt's time.
    expect(budgets).toEqual([1000, 990, 980]);
  });

  it('after the last try fails OUTPUT_INVALID with every try errors', async () => {
    const { outcome, rejections } = await gate([schemaBreaking], { maxTries: 3 });
    expect(rejections.map((rejection) => rejection.reask)).toEqual([true, true, false]);
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'OUTPUT_INVALID',
        message: 'The handler output does not match the output schema (asked 3 times)',
        details: { errors: [{ pointer: '/n' }], tries: [{ try: 1 }, { try: 2 }, { try: 3 }] },
      },
    });
  });

  it('never asks past the timeout: no try starts when less time is left than the last one took', async () => {
    const { outcome, rejections, budgets } = await gate([schemaBreaking], { maxTries: 4, budgetMs: 250, tookMs: 100 });
    expect(budgets).toEqual([250, 150]);
    expect(rejections.map((rejection) => rejection.reask)).toEqual([true, false]);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'OUTPUT_INVALID', details: { tries: [{ try: 1 }, { try: 2 }] } } });
  });

  it('does not ask again once the attempt is cancelled', async () => {
    const { rejections, budgets } = await gate([schemaBreaking, valid], { maxTries: 3, aborted: true });
    expect(budgets).toHaveLength(1);
    expect(rejections).toEqual([{ try: 1, errors: [{ pointer: '/n', message: 'must be number' }], reask: false }]);
  });

  it('passes any other outcome through untouched, without asking again', async () => {
    const timeout: HandlerOutcome = { ok: false, error: { code: 'HANDLER_TIMEOUT', message: 'timed out', details: {} } };
    const { outcome, rejections, budgets } = await gate([timeout, valid], { maxTries: 3 });
    expect(outcome).toBe(timeout);
    expect(rejections).toEqual([]);
    expect(budgets).toHaveLength(1);
  });
});
