import { rename, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort, startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, EXECUTION_SKILLS_ROOT, eventually, obliterateQueue, readSse } from '../support/executions.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { openSse } from '../support/sse.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

/** A skill whose input carries a key and whose output a debug field: what the redact hook removes. */
const SECRET_SCHEMA = `import { z } from '@skill-registry/sdk';
export const EchoInput = z
  .object({ text: z.string().min(1).describe('Text to echo back'), api_key: z.string().optional().describe('A secret the run must not keep') })
  .strict();
export const EchoOutput = z.object({
  text: z.string().describe('The same text'),
  length: z.number().int().describe('Length in characters'),
  debug: z.string().describe('An internal trace the run must not keep'),
});
`;
const SECRET_HANDLER = `import { SkillBase } from '@skill-registry/sdk';
import { EchoInput, EchoOutput } from './schema.js';
export class EchoHandler extends SkillBase<typeof EchoInput, typeof EchoOutput> {
  static readonly inputSchema = EchoInput;
  static readonly outputSchema = EchoOutput;
  async execute(input: { text: string; api_key?: string }) {
    return { text: input.text, length: input.text.length, debug: 'internal trace of ' + (input.api_key ?? 'nothing') };
  }
}
`;

/** A loopback server standing in for the operator's webhook receivers: records each CloudEvent; /fail answers 500. */
async function webhookReceiver() {
  const received: { path: string; contentType: string | undefined; event: any }[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', contentType: request.headers['content-type'], event: JSON.parse(body) });
      response.writeHead(request.url === '/fail' ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * Seeds 001 §4 and 003 §6, hooks declared as data: one HOOKS_FILE read by the real registry (pre_flight) and the
 * real executor (every other phase), and reloaded by both when it changes.
 */
describe('hooks from HOOKS_FILE (registry in process, executor as a process)', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  let hooksFile: string;
  let rows: pg.Client;
  const queuePrefix = `test-hooks-${process.pid}-${Date.now()}`;

  const hooksYaml = (team: string, closed: boolean, unreachablePort: number) => `hooks:
  - name: notify_flight
    phase: pre_flight
    scope: { skills: [hooked_echo] }
    action: { type: webhook, url: '${receiver.base}/flight' }
  - name: flight_audit
    phase: pre_flight
    priority: 200
    scope: { skills: [hooked_echo] }
    action: { type: webhook, url: '${receiver.base}/fail', retries: 0 }
  - name: owner
    phase: pre_step
    scope: { domains: [hooks_demo], tags: [beta] }
    action: { type: annotate, metadata: { team: ${team} } }
  - name: best_effort_audit
    phase: pre_step
    priority: 200
    scope: { skills: [hooked_echo] }
    action: { type: webhook, url: '${receiver.base}/fail', retries: 0 }
  - name: strip_secrets
    phase: pre_delivery
    scope: { skills: [hooked_echo] }
    action: { type: redact, pointers: [/input/api_key, /output/debug] }
  - name: notify_done
    phase: post_delivery
    scope: { skills: [hooked_echo] }
    action: { type: webhook, url: '${receiver.base}/done' }
  - name: frozen
    phase: pre_flight
    requires_feature_flag: enable_freeze
    action: { type: deny, reason: everything is frozen }
  - name: tool_watch
    phase: on_tool
    scope: { skills: [tool_or_fallback] }
    action: { type: webhook, url: '${receiver.base}/tool' }
  - name: two_a_minute
    phase: pre_flight
    scope: { skills: [limited_echo] }
    action: { type: rate_limit, limit: 2, window_seconds: 60 }
  - name: audit_gate
    phase: pre_step
    fail_closed: true
    scope: { skills: [audited_echo] }
    action: { type: webhook, url: 'http://127.0.0.1:${unreachablePort}/audit', retries: 0, timeout_ms: 2000 }
${
  closed
    ? `  - name: maintenance
    phase: pre_flight
    scope: { skills: [closed_echo] }
    action: { type: deny, reason: closed for maintenance }
`
    : ''
}`;
  let unreachable: number;

  const execute = (skill: string, input: Record<string, unknown>, wait = 30) =>
    call(registry.baseUrl, 'POST', `/v1/skills/${skill}/executions?wait=${wait}`, { body: { input, session_id: 'hooks-session' } });

  beforeAll(async () => {
    db = await createTestDatabase('hooks');
    root = await tempRoot();
    receiver = await webhookReceiver();
    unreachable = await freePort();
    const secret = {
      schemaSource: SECRET_SCHEMA,
      handlerSource: SECRET_HANDLER,
      domain: 'hooks_demo',
      definition: { tags: ['beta'] },
      examples: [{ input: { text: 'hi' }, output: { text: 'hi', length: 2, debug: 'internal trace of nothing' } }],
    };
    await writeEchoSkill(root, { name: 'hooked_echo', ...secret });
    for (const name of ['closed_echo', 'limited_echo', 'audited_echo']) await writeEchoSkill(root, { name, domain: 'hooks_demo' });
    hooksFile = path.join(root, 'hooks.yaml');
    await writeFile(hooksFile, hooksYaml('cae', true, unreachable));
    // tool_or_fallback's tool is switched off, so its call completes without an adapter (and on_tool hooks see it).
    const env = {
      HOOKS_FILE: hooksFile,
      FEATURE_FLAGS: 'enable_other',
      TOOL_ADAPTERS: 'spice=http://127.0.0.1:9/mcp',
      TOOLS_DISABLED: 'spice.simulate',
    };
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root, EXECUTION_SKILLS_ROOT], queuePrefix, env });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env });
    await activate(registry.baseUrl, ['hooked_echo', 'closed_echo', 'limited_echo', 'audited_echo', 'tool_or_fallback']);
    rows = new pg.Client({ connectionString: db.url });
    await rows.connect();
  });

  afterAll(async () => {
    await rows?.end();
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await receiver?.close();
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  it('runs every phase around a run: webhooks as CloudEvents, metadata on its end, secrets kept out of the row and the events', async () => {
    const failures = await openSse(`${registry.baseUrl}/v1/events?type=hook.failed`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    const { status, body } = await execute('hooked_echo', { text: 'hi', api_key: 'k-123' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'SUCCEEDED', input: { text: 'hi' }, output: { text: 'hi', length: 2 } });
    expect(body.input.api_key).toBeUndefined();
    expect(body.output.debug).toBeUndefined();
    // The stored row itself, not only its presentation.
    const stored = await rows.query('SELECT input, output FROM executions WHERE id = $1', [body.id]);
    expect(stored.rows[0]).toEqual({ input: { text: 'hi' }, output: { text: 'hi', length: 2 } });

    // pre_flight in the registry (no execution yet), post_delivery after the end; both without what strip_secrets removes.
    await eventually(async () => receiver.received.some((entry) => entry.path === '/done'));
    const flight = receiver.received.find((entry) => entry.path === '/flight')!;
    expect(flight.contentType).toBe('application/cloudevents+json; charset=utf-8');
    expect(flight.event).toMatchObject({
      specversion: '1.0',
      type: 'dev.skill-registry.hook.pre_flight',
      source: '/skill-registry/hooks/notify_flight',
      subject: 'hooked_echo',
      data: { phase: 'pre_flight', execution: { id: null, caller: 'anonymous', session_id: 'hooks-session', input: { text: 'hi' } } },
    });
    const done = receiver.received.find((entry) => entry.path === '/done')!;
    expect(done.event).toMatchObject({
      type: 'dev.skill-registry.hook.post_delivery',
      executionid: body.id,
      data: {
        execution: { id: body.id, status: 'SUCCEEDED', input: { text: 'hi' }, output: { text: 'hi', length: 2 } },
        metadata: { team: 'cae' },
      },
    });
    expect(JSON.stringify(receiver.received.map((entry) => entry.event))).not.toMatch(/k-123|internal trace/);

    // The failing fail-open webhook is a hook_failed event and the run goes on; the annotation rides on the end.
    const events = await readSse(registry.baseUrl, body.id);
    expect(events.map((event) => event.type)).toEqual(['queued', 'started', 'hook_failed', 'succeeded']);
    expect(events[2]!.data).toMatchObject({
      hook: 'best_effort_audit',
      phase: 'pre_step',
      fail_closed: false,
      error: expect.stringContaining('500'),
    });
    expect(events[3]!.data.metadata).toEqual({ team: 'cae' });
    expect(JSON.stringify(events)).not.toMatch(/k-123|internal trace/);

    // On the platform's stream: the pre_flight failure, of no execution yet, and the pre_step one, of this execution.
    try {
      const platform = await failures.until((received) => received.length >= 2);
      // (Two processes publish them, each as it happens: compared in name order.)
      const failed = platform.map((event) => [event.data.data.hook, event.data.execution_id, event.data.skill]);
      expect(failed.sort()).toEqual([
        ['best_effort_audit', body.id, 'hooked_echo'],
        ['flight_audit', null, 'hooked_echo'],
      ]);
    } finally {
      failures.close();
    }
  });

  it("runs on_tool hooks after each of a handler's tool calls, with the call", async () => {
    const { body } = await execute('tool_or_fallback', { volts: 9 });
    expect(body).toMatchObject({ status: 'SUCCEEDED', output: { via: 'fallback' } });
    await eventually(async () => receiver.received.some((entry) => entry.path === '/tool'));
    expect(receiver.received.find((entry) => entry.path === '/tool')!.event).toMatchObject({
      type: 'dev.skill-registry.hook.on_tool',
      subject: 'tool_or_fallback',
      data: { phase: 'on_tool', execution: { id: body.id, attempt: 1 }, tool: { id: 'spice.simulate', ok: true, disabled: true } },
    });
  });

  it('refuses in pre_flight before anything is stored: deny is 403 HOOK_DENIED, the third run in a minute 429 RATE_LIMITED', async () => {
    const denied = await execute('closed_echo', { text: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'HOOK_DENIED', hook: 'maintenance', reason: 'closed for maintenance' });
    expect((await call(registry.baseUrl, 'GET', '/v1/executions?skill=closed_echo')).body.items).toEqual([]);

    expect((await execute('limited_echo', { text: 'a' })).status).toBe(200);
    expect((await execute('limited_echo', { text: 'b' })).status).toBe(200);
    const limited = await execute('limited_echo', { text: 'c' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', hook: 'two_a_minute', retry_after_seconds: expect.any(Number) });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(registry.baseUrl, 'GET', '/v1/executions?skill=limited_echo')).body.items).toHaveLength(2);
    // The flag-gated deny stays off: FEATURE_FLAGS does not enable enable_freeze.
    expect((await execute('audited_echo', { text: 'x' }, 0)).status).toBe(202);
  });

  it('stops a run whose fail-closed hook fails, with HOOK_FAILED naming the hook, before its handler runs', async () => {
    const { body } = await execute('audited_echo', { text: 'x' });
    expect(body).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      error: { code: 'HOOK_FAILED', details: { hook: 'audit_gate', phase: 'pre_step' } },
    });
    expect(body.error.message).toContain("Hook 'audit_gate' (pre_step) failed and is fail-closed");
    const events = await readSse(registry.baseUrl, body.id);
    expect(events.map((event) => event.type)).toEqual(['queued', 'started', 'hook_failed', 'failed']);
    expect(events[2]!.data).toMatchObject({ hook: 'audit_gate', fail_closed: true });
    const metrics = await fetch(`http://127.0.0.1:${executor.port}/metrics`).then((response) => response.text());
    expect(metrics).toMatch(/skill_hook_failures_total\{hook="audit_gate",phase="pre_step"[^}]*\} [1-9]/);
  });

  it('reloads the file in both processes when it changes; a file that does not validate leaves the last good hooks', async () => {
    // Rewritten as editors do (a new file renamed over the old one): closed_echo opens, the annotation changes.
    await writeFile(`${hooksFile}.tmp`, hooksYaml('eda', false, unreachable));
    await rename(`${hooksFile}.tmp`, hooksFile);
    await eventually(async () => (await execute('closed_echo', { text: 'x' }, 0)).status === 202);
    await eventually(async () => {
      const { body } = await execute('hooked_echo', { text: 'hi' });
      const events = await readSse(registry.baseUrl, body.id);
      return events.at(-1)?.data.metadata?.team === 'eda';
    });
    await writeFile(hooksFile, 'hooks: [{ name: broken, phase: sometime }]');
    await eventually(async () => {
      const metrics = await call(registry.baseUrl, 'GET', '/metrics');
      return /skill_hooks_file_reloads_total\{outcome="kept"[^}]*\} [1-9]/.test(metrics.body);
    });
    expect((await execute('closed_echo', { text: 'x' }, 0)).status).toBe(202);
    expect((await execute('limited_echo', { text: 'd' })).status).toBe(429);
  });
});
