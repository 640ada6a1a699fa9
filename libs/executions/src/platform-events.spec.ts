import { platformTypeOf } from './platform-events.js';

describe("a workflow's step events on the platform stream", () => {
  const at = '2026-12-05T00:00:00.000Z';

  it('are step.started, then step.completed or step.failed by the outcome', () => {
    expect(platformTypeOf({ type: 'step_started', at, step: 'create', tool: 'create_sphere', index: 0 })).toBe('step.started');
    const completed = { type: 'step_completed' as const, at, step: 'create', tool: 'create_sphere', index: 0, duration_ms: 12 };
    expect(platformTypeOf({ ...completed, ok: true })).toBe('step.completed');
    expect(platformTypeOf({ ...completed, ok: false, error: { code: 'HANDLER_ERROR', message: 'exit 3', details: {} } })).toBe(
      'step.failed',
    );
  });
});
