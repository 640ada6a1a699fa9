import type { PlatformEvent } from '#executions/index.js';
import type { Principal } from '../auth/principal.js';
import { RequestInvalid } from '../problem/domain-errors.js';
import { parseEventsQuery } from './events.dto.js';
import { delivers } from './watch-events.js';

const admin: Principal = { identity: 'root', role: 'admin' };
const acme: Principal = { identity: 'acme', role: 'publisher', scopes: ['acme_*'] };

function event(type: PlatformEvent['type'], skill: string | null, session: string | null = null): PlatformEvent {
  return { id: '1-0', type, at: '2026-12-05T00:00:00.000Z', execution_id: skill ? 'e1' : null, skill, session_id: session, data: {} };
}

describe('who gets which platform event', () => {
  it('gives an admin every event, and a publisher only those of the skills its scopes cover (never one of no skill)', () => {
    const none = {};
    expect(delivers(admin, none, event('run.started', 'compare_results'))).toBe(true);
    expect(delivers(admin, none, event('hook.failed', null))).toBe(true);
    expect(delivers(acme, none, event('run.started', 'acme_filter'))).toBe(true);
    expect(delivers(acme, none, event('run.started', 'compare_results'))).toBe(false);
    expect(delivers(acme, none, event('hook.failed', null))).toBe(false);
  });

  it('filters by exact types and families, skill and session, all of them at once', () => {
    const filter = { types: ['run.completed', 'tool.*'], skill: 'acme_filter', sessionId: 's1' };
    expect(delivers(admin, filter, event('run.completed', 'acme_filter', 's1'))).toBe(true);
    expect(delivers(admin, filter, event('tool.failed', 'acme_filter', 's1'))).toBe(true);
    expect(delivers(admin, filter, event('run.started', 'acme_filter', 's1'))).toBe(false);
    expect(delivers(admin, filter, event('run.completed', 'acme_other', 's1'))).toBe(false);
    expect(delivers(admin, filter, event('run.completed', 'acme_filter', 's2'))).toBe(false);
  });
});

describe('the events query', () => {
  it('reads types repeated or comma-separated, and resumes from Last-Event-ID over `from`', () => {
    expect(parseEventsQuery({ type: ['run.*', 'tool.failed,hook.failed'], from: '0' }, undefined)).toEqual({
      types: ['run.*', 'tool.failed', 'hook.failed'],
      skill: undefined,
      sessionId: undefined,
      from: '0',
    });
    expect(parseEventsQuery({ from: '0' }, '1733000000000-3').from).toBe('1733000000000-3');
    expect(parseEventsQuery({}, undefined).from).toBeUndefined();
  });

  it('refuses unknown types and families, malformed positions and unknown parameters, naming each', () => {
    const refusal = (query: Record<string, unknown>, lastEventId?: string) => {
      try {
        parseEventsQuery(query, lastEventId);
      } catch (error) {
        if (error instanceof RequestInvalid) return error.errors.map((entry) => entry.field);
        throw error;
      }
      throw new Error('accepted');
    };
    expect(refusal({ type: 'run.nope' })).toEqual(['type.0']);
    expect(refusal({ type: 'nope.*' })).toEqual(['type.0']);
    expect(refusal({ from: 'yesterday' })).toEqual(['from']);
    expect(refusal({}, '12')).toEqual(['Last-Event-ID header']);
    expect(refusal({ execution: 'x' })).toEqual(['execution']);
  });
});
