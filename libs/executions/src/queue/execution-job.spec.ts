import { describe, expect, it } from '@jest/globals';
import type { ExecutionRecord } from '../execution-model.js';
import { QUEUED_SNAPSHOT_MAX_INPUT_BYTES, queuedSnapshotOf, recordFromSnapshot } from './execution-job.js';

const queued: ExecutionRecord = {
  id: '0b9e3c52-5a43-4a8e-9d0c-1f3b7c2a9e11',
  skillVersionId: '7d1c2a9e-5a43-4a8e-9d0c-1f3b7c2a9e11',
  skillName: 'compare_results',
  version: '0.1.0',
  purpose: 'call',
  branch: 'main',
  traceId: null,
  traceParent: null,
  tool: null,
  status: 'QUEUED',
  input: { signals: [1, 2, 3], label: 'héllo' },
  output: null,
  error: null,
  attempts: 0,
  maxAttempts: 3,
  attemptRunning: false,
  warnings: [],
  sessionId: null,
  caller: 'agent',
  idempotencyKey: null,
  requestHash: null,
  cancelRequestedAt: null,
  heartbeatAt: null,
  createdAt: new Date('2026-12-03T06:00:00.123Z'),
  startedAt: null,
  finishedAt: null,
  durationMs: null,
};

/** What a snapshot looks like once BullMQ has stored it as JSON and handed it back. */
const throughRedis = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('the queued snapshot a job carries', () => {
  it('comes back as the same record, dates included', () => {
    expect(recordFromSnapshot(queued.id, throughRedis(queuedSnapshotOf(queued)))).toEqual(queued);
  });

  it('is not made for an execution that is not a fresh QUEUED one, nor for a large input', () => {
    expect(queuedSnapshotOf({ ...queued, status: 'RUNNING' })).toBeUndefined();
    expect(queuedSnapshotOf({ ...queued, attempts: 1 })).toBeUndefined();
    expect(queuedSnapshotOf({ ...queued, input: { text: 'x'.repeat(QUEUED_SNAPSHOT_MAX_INPUT_BYTES) } })).toBeUndefined();
  });

  it('is refused (the row is read instead) unless it describes this QUEUED execution before any attempt', () => {
    const snapshot = throughRedis(queuedSnapshotOf(queued)) as Record<string, unknown>;
    expect(recordFromSnapshot('another-id', snapshot)).toBeNull();
    for (const change of [
      { status: 'RUNNING' },
      { attempts: 1 },
      { attemptRunning: true },
      { cancelRequestedAt: '2026-12-03T06:00:01Z' },
      { input: [1, 2] },
      { input: null },
      { skillVersionId: 7 },
      { createdAt: 'yesterday' },
    ]) {
      expect(recordFromSnapshot(queued.id, { ...snapshot, ...change })).toBeNull();
    }
    for (const junk of [undefined, null, 'text', 42, [snapshot]]) expect(recordFromSnapshot(queued.id, junk)).toBeNull();
  });
});
