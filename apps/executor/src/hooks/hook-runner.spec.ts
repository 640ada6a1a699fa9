import type { ExecutionRecord } from '#executions/index.js';
import type { ExecutionHook } from './execution-hook.js';
import { HookRefused, HookRunner } from './hook-runner.js';

const context = { execution: { id: 'e1' } as ExecutionRecord, attempt: 1 };

function hook(name: string, priority: number, failClosed: boolean, before: ExecutionHook['beforeExecute'], calls: string[]): ExecutionHook {
  return {
    name,
    priority,
    failClosed,
    beforeExecute: (ctx) => {
      calls.push(name);
      return before?.(ctx);
    },
  };
}

describe('execution hooks', () => {
  it('run in priority order', async () => {
    const calls: string[] = [];
    const runner = new HookRunner([hook('late', 20, false, () => undefined, calls), hook('early', 10, false, () => undefined, calls)]);
    await runner.beforeExecute(context);
    expect(calls).toEqual(['early', 'late']);
  });

  it('a veto stops the run with PRECONDITION_FAILED and later hooks do not run', async () => {
    const calls: string[] = [];
    const runner = new HookRunner([
      hook('quota', 1, false, () => ({ veto: 'daily quota used' }), calls),
      hook('after', 2, false, () => undefined, calls),
    ]);
    await expect(runner.beforeExecute(context)).rejects.toMatchObject({
      error: { code: 'PRECONDITION_FAILED', message: expect.stringContaining('daily quota used') },
    });
    expect(calls).toEqual(['quota']);
  });

  it('a failing fail-open hook is ignored; a failing fail-closed hook fails the run', async () => {
    const calls: string[] = [];
    const boom = () => {
      throw new Error('audit store down');
    };
    await expect(new HookRunner([hook('audit', 1, false, boom, calls)]).beforeExecute(context)).resolves.toBeUndefined();
    await expect(new HookRunner([hook('audit', 1, true, boom, calls)]).beforeExecute(context)).rejects.toBeInstanceOf(HookRefused);
  });
});
