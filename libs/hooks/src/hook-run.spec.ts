import type { HookPhase } from './hook-file.js';
import {
  EMPTY_CONTEXT,
  HookFailure,
  HookRefusal,
  type HookEvent,
  type HookObserver,
  type HookResult,
  type RunnableHook,
  inScope,
  orderHooks,
  runPhase,
} from './hook-run.js';
import { redact } from './redaction.js';

const skill = { name: 'acme_filter', version: '1.0.0', domain: 'simulation', tags: ['beta', 'spice'] };
const event = (phase: HookPhase): HookEvent => ({
  phase,
  skill,
  execution: { id: 'e1', caller: 'bot', sessionId: null, attempt: 1, input: { a: 1 } },
});

function hook(name: string, priority: number, run: RunnableHook['run'], options: Partial<RunnableHook> = {}): RunnableHook {
  return { name, priority, phase: 'pre_step', failClosed: false, source: 'code', run, ...options };
}

function observer() {
  const seen: string[] = [];
  const watching: HookObserver = {
    ran: (h, outcome) => seen.push(`${h.name}:${outcome}`),
    failed: (h, error) => seen.push(`${h.name}:failed:${(error as Error).message}`),
  };
  return { seen, watching };
}

describe('hook scopes', () => {
  it('cover every skill when empty; each list given must match (names, prefixes, tags, domains)', () => {
    expect(inScope({}, skill)).toBe(true);
    expect(inScope({ skills: ['acme_*'] }, skill)).toBe(true);
    expect(inScope({ skills: ['acme_filter'] }, skill)).toBe(true);
    expect(inScope({ skills: ['acme'] }, skill)).toBe(false);
    expect(inScope({ skills: ['*'] }, skill)).toBe(true);
    expect(inScope({ tags: ['stable', 'beta'] }, skill)).toBe(true);
    expect(inScope({ tags: ['stable'] }, skill)).toBe(false);
    expect(inScope({ domains: ['simulation'], tags: ['beta'] }, skill)).toBe(true);
    expect(inScope({ domains: ['firmware'], tags: ['beta'] }, skill)).toBe(false);
  });
});

describe('hook order', () => {
  it('is ascending priority, then name, whatever a hook comes from', () => {
    const hooks = [hook('b', 10, () => undefined), hook('z', 1, () => undefined, { source: 'file' }), hook('a', 10, () => undefined)];
    expect(orderHooks(hooks).map((h) => h.name)).toEqual(['z', 'a', 'b']);
  });
});

describe('running a phase', () => {
  it('hands each hook the context the ones before it left, and returns it', async () => {
    const seenBySecond: unknown[] = [];
    const context = await runPhase(
      [
        hook('first', 1, () => ({ metadata: { team: 'cae' }, redactions: ['/input/a'] })),
        hook('second', 2, (_event, ctx) => {
          seenBySecond.push(ctx);
          return { metadata: { team: 'eda', ticket: 7 } };
        }),
      ],
      event('pre_step'),
      EMPTY_CONTEXT,
      observer().watching,
    );
    expect(seenBySecond).toEqual([{ metadata: { team: 'cae' }, redactions: ['/input/a'] }]);
    expect(context).toEqual({ metadata: { team: 'eda', ticket: 7 }, redactions: ['/input/a'] });
  });

  it('stops at a refusal: later hooks do not run', async () => {
    const { seen, watching } = observer();
    const refusing = (): HookResult => ({ refuse: { reason: 'quota used', action: 'rate_limit', retryAfterSeconds: 30 } });
    const run = runPhase([hook('quota', 1, refusing), hook('later', 2, () => undefined)], event('pre_step'), EMPTY_CONTEXT, watching);
    await expect(run).rejects.toEqual(expect.any(HookRefusal));
    await expect(run).rejects.toMatchObject({ hook: 'quota', phase: 'pre_step', reason: 'quota used', retryAfterSeconds: 30 });
    expect(seen).toEqual(['quota:refused']);
  });

  it('reports a failing fail-open hook and goes on; a failing fail-closed hook stops the phase naming it', async () => {
    const boom = () => {
      throw new Error('audit store down');
    };
    const open = observer();
    await runPhase([hook('audit', 1, boom), hook('later', 2, () => undefined)], event('pre_step'), EMPTY_CONTEXT, open.watching);
    expect(open.seen).toEqual(['audit:failed:audit store down', 'later:ok']);

    const closed = observer();
    const run = runPhase(
      [hook('audit', 1, boom, { failClosed: true }), hook('later', 2, () => undefined)],
      event('pre_step'),
      EMPTY_CONTEXT,
      closed.watching,
    );
    await expect(run).rejects.toEqual(expect.any(HookFailure));
    await expect(run).rejects.toMatchObject({ hook: 'audit', phase: 'pre_step', message: expect.stringContaining('audit store down') });
    expect(closed.seen).toEqual(['audit:failed:audit store down']);
  });

  it('never stops after the outcome is decided (post_delivery, on_error): refusals and fail-closed failures are only reported', async () => {
    for (const phase of ['post_delivery', 'on_error'] as const) {
      const { seen, watching } = observer();
      await runPhase(
        [
          hook('closed', 1, () => Promise.reject(new Error('down')), { failClosed: true, phase }),
          hook('veto', 2, () => ({ refuse: { reason: 'no' } }), { phase }),
          hook('last', 3, () => undefined, { phase }),
        ],
        event(phase),
        EMPTY_CONTEXT,
        watching,
      );
      expect(seen).toEqual(['closed:failed:down', 'veto:refused', 'last:ok']);
    }
  });
});

describe('redaction', () => {
  it('removes what the pointers name from a copy: keys, nested keys, escaped keys, array elements from the end', () => {
    const documents = {
      input: { api_key: 'k', keep: 1, 'a/b': 2, nested: { secret: 's', ok: true }, list: ['x', 'y', 'z'] },
      output: { raw: 'big', result: 3 },
    };
    const redacted = redact(documents, [
      '/input/api_key',
      '/input/a~1b',
      '/input/nested/secret',
      '/input/list/0',
      '/input/list/2',
      '/output/raw',
    ]);
    expect(redacted).toEqual({ input: { keep: 1, nested: { ok: true }, list: ['y'] }, output: { result: 3 } });
    expect(documents.input.api_key).toBe('k');
  });

  it('skips pointers that name nothing and never walks into prototypes', () => {
    const documents = { input: { a: 1 }, output: null };
    expect(redact(documents, ['/input/missing/deep', '/output/x', '/input/__proto__/hasOwnProperty', '/input/toString'])).toEqual({
      input: { a: 1 },
      output: null,
    });
    expect(typeof Object.prototype.hasOwnProperty).toBe('function');
  });
});
