import { describe, expect, it } from '@jest/globals';
import type { ExecutionRecord } from '#executions/index.js';
import { HookSet, type HookObserver, type RunnableHook, WebhookSender, parseHooksFile } from '#hooks/index.js';
import { AttemptHooks, HookRefused } from './attempt-hooks.js';
import type { ExecutionHook } from './execution-hook.js';

const version = { name: 'acme_filter', version: '1.0.0', domain: 'simulation', tags: ['beta'] };
const execution = {
  id: 'e1',
  attempts: 1,
  caller: 'bot',
  sessionId: 's1',
  input: { token: 'secret', text: 'hi' },
  skillName: 'acme_filter',
} as unknown as ExecutionRecord;

function fileHooks(yaml: string) {
  const counter = { hit: async () => ({ count: 1, resetSeconds: 60 }) };
  return new HookSet(parseHooksFile(yaml, 'hooks.yaml'), new Set(), { rateCounter: counter, webhooks: new WebhookSender() }).forSkill(
    version,
  );
}

function recording() {
  const seen = { ran: [] as string[], failed: [] as string[] };
  const observer: HookObserver = {
    ran: (hook: RunnableHook, outcome) => seen.ran.push(`${hook.source}:${hook.name}:${hook.phase}:${outcome}`),
    failed: (hook: RunnableHook) => seen.failed.push(`${hook.name}:${hook.phase}`),
  };
  return { seen, observer };
}

describe('the hooks of an attempt', () => {
  it('run file and code hooks in one order (priority, then name), sharing one context from phase to phase', async () => {
    const calls: string[] = [];
    const code: ExecutionHook = {
      name: 'quota',
      priority: 5,
      failClosed: false,
      beforeExecute: (context) => {
        calls.push(`quota saw ${JSON.stringify(context.metadata)}`);
        return { metadata: { quota: 'ok' }, metrics: { checks: 1 } };
      },
      afterExecute: (context) =>
        void calls.push(`pre_delivery saw ${JSON.stringify(context.metadata)} and ${JSON.stringify(context.output)}`),
    };
    const { seen, observer } = recording();
    const hooks = new AttemptHooks(
      fileHooks(`hooks:
  - { name: owner, phase: pre_step, priority: 1, action: { type: annotate, metadata: { team: cae } } }
  - { name: later, phase: pre_step, priority: 10, action: { type: annotate, metadata: { step: 2 } } }
`),
      [code],
      execution,
      version,
      observer,
    );
    await hooks.preStep();
    await hooks.preDelivery({ n: 1 });
    expect(seen.ran).toEqual(['file:owner:pre_step:ok', 'code:quota:pre_step:ok', 'file:later:pre_step:ok', 'code:quota:pre_delivery:ok']);
    expect(calls).toEqual(['quota saw {"team":"cae"}', 'pre_delivery saw {"team":"cae","quota":"ok","step":2} and {"n":1}']);
    expect(hooks.metadata).toEqual({ team: 'cae', quota: 'ok', step: 2 });
  });

  it("turns a code hook's veto into HOOK_DENIED and a fail-closed failure into HOOK_FAILED, each naming the hook", async () => {
    const veto: ExecutionHook = { name: 'policy', priority: 1, failClosed: false, beforeExecute: () => ({ veto: 'not today' }) };
    const denied = new AttemptHooks(fileHooks('hooks: []'), [veto], execution, version, recording().observer).preStep();
    await expect(denied).rejects.toBeInstanceOf(HookRefused);
    await expect(denied).rejects.toMatchObject({
      error: { code: 'HOOK_DENIED', details: { hook: 'policy', phase: 'pre_step', reason: 'not today', action: 'veto' } },
    });

    const broken: ExecutionHook = {
      name: 'audit',
      priority: 1,
      failClosed: true,
      postStep: () => {
        throw new Error('audit store down');
      },
    };
    const { seen, observer } = recording();
    const failed = new AttemptHooks(fileHooks('hooks: []'), [broken], execution, version, observer).postStep({ n: 1 });
    await expect(failed).rejects.toMatchObject({
      error: { code: 'HOOK_FAILED', message: expect.stringContaining('audit store down'), details: { hook: 'audit', phase: 'post_step' } },
    });
    expect(seen.failed).toEqual(['audit:post_step']);
  });

  it('never stops in on_error and post_delivery, whatever a hook does', async () => {
    const grumpy: ExecutionHook = {
      name: 'grumpy',
      priority: 1,
      failClosed: true,
      onError: () => {
        throw new Error('no');
      },
      postDelivery: () => ({ veto: 'too late' }),
    };
    const { seen, observer } = recording();
    const hooks = new AttemptHooks(fileHooks('hooks: []'), [grumpy], execution, version, observer);
    await expect(hooks.onError({ code: 'TOOL_ERROR', message: 'x', details: {} })).resolves.toBeUndefined();
    await expect(hooks.postDelivery({ ...execution, status: 'FAILED' })).resolves.toBeUndefined();
    expect(seen.failed).toEqual(['grumpy:on_error']);
    expect(seen.ran).toEqual(['code:grumpy:post_delivery:refused']);
  });

  it('stores input and output without what redact hooks (from the start) and code hooks (once returned) remove', async () => {
    const redacting: ExecutionHook = {
      name: 'strip_text',
      priority: 1,
      failClosed: false,
      postStep: () => ({ redactions: ['/output/raw'] }),
    };
    const hooks = new AttemptHooks(
      fileHooks('hooks: [{ name: strip, phase: pre_delivery, action: { type: redact, pointers: [/input/token] } }]'),
      [redacting],
      execution,
      version,
      recording().observer,
    );
    expect(hooks.stored(undefined)).toEqual({ input: { text: 'hi' } });
    await hooks.postStep({ raw: 'big', n: 1 });
    expect(hooks.stored({ raw: 'big', n: 1 })).toEqual({ input: { text: 'hi' }, output: { n: 1 } });
    expect(execution.input).toEqual({ token: 'secret', text: 'hi' });
  });

  it('are empty, and store what they are given, when no hook applies', () => {
    const hooks = new AttemptHooks(
      fileHooks('hooks: [{ name: x, phase: pre_step, scope: { tags: [stable] }, action: { type: deny, reason: r } }]'),
      [],
      execution,
      version,
      recording().observer,
    );
    expect(hooks.empty).toBe(true);
    expect(hooks.stored({ n: 1 })).toEqual({ output: { n: 1 } });
    expect(hooks.metadata).toBeUndefined();
  });
});
