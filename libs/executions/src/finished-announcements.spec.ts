import { announcedExecutionId, decodeFinished } from './finished-announcements.js';

describe('decodeFinished', () => {
  const row = {
    id: '6b0f7c1e-8d1f-4c1a-9f7e-3f1d2c4b5a69',
    skill_version_id: '0c8e7f9a-1b2c-4d3e-8f4a-5b6c7d8e9f01',
    skill_name: 'demo',
    version: '1.0.0',
    purpose: 'call',
    status: 'SUCCEEDED',
    input: { x: 1 },
    output: { y: 2 },
    error: null,
    attempts: 1,
    max_attempts: 3,
    attempt_running: false,
    warnings: [],
    session_id: null,
    caller: 'bot',
    idempotency_key: null,
    request_hash: null,
    cancel_requested_at: null,
    heartbeat_at: '2026-12-01T04:00:00.1+00:00',
    created_at: '2026-12-01T04:00:00+00:00',
    started_at: '2026-12-01T04:00:00.05+00:00',
    finished_at: '2026-12-01T04:00:00.123+00:00',
    duration_ms: 73,
  };

  it('turns a row as row_to_json writes it into a record with real dates', () => {
    const decoded = decodeFinished(JSON.stringify(row));
    expect(decoded?.id).toBe(row.id);
    expect(decoded?.execution).toMatchObject({
      status: 'SUCCEEDED',
      output: { y: 2 },
      attempts: 1,
      durationMs: 73,
      cancelRequestedAt: null,
    });
    expect(decoded?.execution?.finishedAt).toEqual(new Date('2026-12-01T04:00:00.123Z'));
    expect(decoded?.execution?.createdAt).toEqual(new Date('2026-12-01T04:00:00Z'));
  });

  it('reads an announcement by id alone as "read the row yourself"', () => {
    expect(decodeFinished(JSON.stringify({ id: row.id }))).toEqual({ id: row.id, execution: null });
  });

  it('ignores payloads that are not announcements', () => {
    expect(decodeFinished('not json')).toBeNull();
    expect(decodeFinished(JSON.stringify({ status: 'SUCCEEDED' }))).toBeNull();
    expect(decodeFinished('null')).toBeNull();
  });
});

describe('announcedExecutionId', () => {
  const id = '6b0f7c1e-8d1f-4c1a-9f7e-3f1d2c4b5a69';

  it('reads the id at the head of a row as row_to_json writes it', () => {
    expect(announcedExecutionId(`{"id":"${id}","skill_version_id":"x","status":"SUCCEEDED"}`)).toBe(id);
  });

  it('is null for any other shape, which is then decoded in full', () => {
    expect(announcedExecutionId(`{"id" : "${id}"}`)).toBeNull(); // json_build_object's, for large records
    expect(announcedExecutionId(`{"id":"${id}x","status":"SUCCEEDED"}`)).toBeNull();
    expect(announcedExecutionId(`{"id":"short"}`)).toBeNull();
    expect(announcedExecutionId('')).toBeNull();
  });
});
