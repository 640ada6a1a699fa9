import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, EXECUTION_SKILLS_ROOT, obliterateQueue, readSse } from '../support/executions.js';
import { call, startRegistry, type RunningRegistry } from '../support/registry.js';

/**
 * Seed 001 §3.3: a tool the operator disabled (TOOLS_DISABLED) never raises. The run of a skill that requires
 * it goes ahead, its call answers { disabled: true, reason } without reaching the adapter (nothing listens at
 * the adapter's address here), and the handler decides; the skill's view shows the tool as disabled.
 */
describe('a disabled tool degrades gracefully (registry in process, executor as a process)', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const queuePrefix = `test-disabled-${process.pid}-${Date.now()}`;
  const tools = { TOOL_ADAPTERS: 'spice=http://127.0.0.1:9/mcp', TOOLS_DISABLED: 'spice.simulate' };
  // The registry knows an adapter 'nosuch' (down, so needs_missing_tool registers with a warning); the executor does not.
  const registryTools = { ...tools, TOOL_ADAPTERS: 'spice=http://127.0.0.1:9/mcp,nosuch=http://127.0.0.1:9/mcp' };

  beforeAll(async () => {
    db = await createTestDatabase('disabled_tools');
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix, env: registryTools });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: tools });
    await activate(registry.baseUrl, ['tool_or_fallback', 'needs_missing_tool']);
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  it('runs the skill, hands the handler the structured result, and says so in the tool event', async () => {
    const { status, body } = await call(registry.baseUrl, 'POST', '/v1/skills/tool_or_fallback/executions?wait=15', {
      body: { input: { volts: 9 } },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'SUCCEEDED',
      output: { via: 'fallback', v_out: 4.5, reason: "tool 'spice.simulate' is disabled by TOOLS_DISABLED" },
    });
    const events = await readSse(registry.baseUrl, body.id);
    const completed = events.find((event) => event.type === 'tool_completed');
    expect(completed?.data).toMatchObject({ tool_id: 'spice.simulate', ok: true, disabled: true });
  });

  it("shows the required tool as disabled in the skill's view", async () => {
    const { body } = await call(registry.baseUrl, 'GET', '/v1/skills/tool_or_fallback');
    expect(body.tools_status).toEqual([
      {
        tool_id: 'spice.simulate',
        capability: 'circuit_simulation',
        required: true,
        available: false,
        disabled: true,
        reason: 'disabled by TOOLS_DISABLED',
      },
    ]);
  });

  it('still refuses a required tool that is missing, not disabled, with PRECONDITION_FAILED', async () => {
    const { body } = await call(registry.baseUrl, 'POST', '/v1/skills/needs_missing_tool/executions?wait=15', {
      body: { input: { marker: '/nonexistent/never-written' } },
    });
    expect(body).toMatchObject({ status: 'FAILED', error: { code: 'PRECONDITION_FAILED' } });
    expect(body.error.message).toContain('nosuch.tool');
  });
});
