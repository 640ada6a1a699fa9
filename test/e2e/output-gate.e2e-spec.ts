import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, EXECUTION_SKILLS_ROOT, markerDir, obliterateQueue, readSse } from '../support/executions.js';
import { call, startRegistry, type RunningRegistry } from '../support/registry.js';

/**
 * Seed 001 §2.3, gates that re-ask: `gate_reask` (idempotent, max_retries_per_gate 2) returns output that
 * breaks its schema until the try its input names; the executor asks again within the one attempt, each
 * refusal an `output_invalid` event, and fails OUTPUT_INVALID with every try's errors once the tries are spent.
 */
describe('output gates that re-ask (registry in process, executor as a process)', () => {
  let db: TestDatabase;
  let markers: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const queuePrefix = `test-gate-${process.pid}-${Date.now()}`;
  const execute = (marker: string, goodOnTry: number) =>
    call(registry.baseUrl, 'POST', '/v1/skills/gate_reask/executions?wait=30', {
      body: { input: { marker: path.join(markers, marker), good_on_try: goodOnTry } },
    });

  beforeAll(async () => {
    db = await createTestDatabase('output_gate');
    markers = await markerDir();
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, ['gate_reask', 'bad_output']);
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(markers, { recursive: true, force: true });
  });

  it('serves the definition field on the version', async () => {
    const { body } = await call(registry.baseUrl, 'GET', '/v1/skills/gate_reask/versions/1.0.0');
    expect(body).toMatchObject({ max_retries_per_gate: 2, idempotent: true });
  });

  it('asks again after an invalid result and succeeds on the third try, in one attempt, each refusal an event', async () => {
    const { status, body } = await execute('third', 3);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'SUCCEEDED', output: { tries: 3 }, attempts: 1 });
    const events = await readSse(registry.baseUrl, body.id);
    expect(events.map((event) => event.type)).toEqual(['queued', 'started', 'output_invalid', 'output_invalid', 'succeeded']);
    const refusals = events.filter((event) => event.type === 'output_invalid').map((event) => event.data);
    expect(refusals.map(({ attempt, try: tryNumber, reask }) => ({ attempt, try: tryNumber, reask }))).toEqual([
      { attempt: 1, try: 1, reask: true },
      { attempt: 1, try: 2, reask: true },
    ]);
    expect(refusals[0].errors.length).toBeGreaterThan(0);
  });

  it('fails OUTPUT_INVALID with every try errors once its re-asks are spent', async () => {
    const { body } = await execute('never', 99);
    expect(body).toMatchObject({ status: 'FAILED', attempts: 1, error: { code: 'OUTPUT_INVALID' } });
    expect(body.error.message).toContain('asked 3 times');
    expect(body.error.details.tries.map((entry: { try: number }) => entry.try)).toEqual([1, 2, 3]);
    const events = await readSse(registry.baseUrl, body.id);
    expect(events.filter((event) => event.type === 'output_invalid').map((event) => event.data.reask)).toEqual([true, true, false]);
  });

  it('leaves a skill without re-asks as it was: one try, no output_invalid event', async () => {
    const { body } = await call(registry.baseUrl, 'POST', '/v1/skills/bad_output/executions?wait=30', {
      body: { input: { marker: path.join(markers, 'bad') } },
    });
    expect(body).toMatchObject({ status: 'FAILED', error: { code: 'OUTPUT_INVALID' } });
    expect(body.error.details.tries).toBeUndefined();
    const events = await readSse(registry.baseUrl, body.id);
    expect(events.map((event) => event.type)).not.toContain('output_invalid');
  });
});
