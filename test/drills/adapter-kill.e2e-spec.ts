import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, processesUnder, startAdapterProcess, type AdapterProcess } from '../adapters/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { eventually, obliterateQueue, waitForTerminal } from '../support/executions.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT } from '../support/skill-packages.js';

const SKILL = 'run_circuit_sim';
const CLEAR_CODES = ['TOOL_ERROR', 'TOOL_UNAVAILABLE', 'PRECONDITION_FAILED'];
// Several seconds of ngspice: long enough to kill the adapter mid-call.
const SLOW_INPUT = {
  netlist: 'slow rc\nV1 in 0 SIN(0 1 1k)\nR1 in out 1k\nC1 out 0 1u\n.end\n',
  analyses: [{ type: 'tran', step_s: 1e-3, stop_s: 3, max_step_s: 1e-6 }],
  vectors: ['v(out)'],
  return_vectors: false,
};

/** Smoke version of drills/adapter-kill.mjs: the spice adapter killed once mid-call and started again. */
describe('drill smoke: spice adapter killed mid-call', () => {
  let db: TestDatabase;
  let scratch: string;
  let port: number;
  let adapter: AdapterProcess;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let example: unknown;
  const queuePrefix = `test-drill-adapter-${process.pid}-${Date.now()}`;
  const execute = (input: unknown, wait = 60) =>
    call(registry.baseUrl, 'POST', `/v1/skills/${SKILL}/executions${wait ? `?wait=${wait}` : ''}`, { body: { input } });

  beforeAll(async () => {
    const definition = JSON.parse(await readFile(path.join(REPO_ROOT, 'skills/simulation', SKILL, 'definition.json'), 'utf8'));
    example = definition.examples[0].input;
    db = await createTestDatabase('drill_adapter');
    scratch = await mkdtemp(path.join(os.tmpdir(), 'drill-spice-scratch-'));
    port = await freePort();
    adapter = await startAdapterProcess('spice', port, { SCRATCH_ROOT: scratch });
    const env = { TOOL_ADAPTERS: `spice=http://127.0.0.1:${port}/mcp` };
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [path.join(REPO_ROOT, 'skills')], queuePrefix, env });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env });
    const promoted = await call(registry.baseUrl, 'POST', `/v1/admin/skills/${SKILL}/versions/${definition.version}/promote`, {
      token: ADMIN_TOKEN,
      body: { force: true, reason: 'drill smoke test' },
    });
    expect(promoted.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await adapter?.kill();
    for (const { pid } of processesUnder(scratch)) process.kill(pid, 'SIGKILL');
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('fails the calls caught by the outage with a clear tool error, stays up, and succeeds again after the restart', async () => {
    expect((await execute(example)).body).toMatchObject({ status: 'SUCCEEDED' });
    const slow = await execute(SLOW_INPUT, 0);
    expect(slow.status).toBe(202);
    await eventually(async () => processesUnder(scratch).some((p) => p.name === 'ngspice'), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await adapter.kill();
    // Its ngspice run has its own process group and outlives it.
    for (const { pid } of processesUnder(scratch)) process.kill(pid, 'SIGKILL');

    const during = await execute(example, 30);
    expect(during.status).toBeLessThan(500);
    expect(during.body.status).toBe('FAILED');
    expect(CLEAR_CODES).toContain(during.body.error.code);
    const killed = await waitForTerminal(registry.baseUrl, slow.body.id, 30_000);
    if (killed.status !== 'SUCCEEDED') expect(CLEAR_CODES).toContain(killed.error.code);
    expect(executor.child.exitCode).toBeNull();

    adapter = await startAdapterProcess('spice', port, { SCRATCH_ROOT: scratch });
    const restarted = Date.now();
    await eventually(async () => (await execute(example)).body.status === 'SUCCEEDED', 15_000);
    expect(Date.now() - restarted).toBeLessThan(15_000);
    expect(executor.child.exitCode).toBeNull();
  }, 60_000);
});
