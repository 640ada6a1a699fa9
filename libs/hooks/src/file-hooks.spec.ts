import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HookPorts } from './file-hooks.js';
import { parseHooksFile } from './hook-file.js';
import { EMPTY_CONTEXT, HookFailure, HookRefusal, type HookEvent, type HookObserver, runPhase } from './hook-run.js';
import { HookSet } from './hook-set.js';
import { HooksFileSource, type HooksReload } from './hooks-file-source.js';
import type { RateCounter } from './rate-counter.js';
import { WebhookFailed, WebhookSender } from './webhook.js';

const skill = { name: 'acme_filter', version: '1.0.0', domain: 'simulation', tags: ['beta'] };
const other = { name: 'compare_results', version: '0.1.0', domain: 'simulation', tags: [] };
const quiet: HookObserver = { ran: () => undefined, failed: () => undefined };

/** Fixed windows in memory (the Redis one is tested against Redis). */
class MemoryCounter implements RateCounter {
  readonly counts = new Map<string, number>();
  async hit(key: string) {
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return { count, resetSeconds: 42 };
  }
}

function setOf(yaml: string, flags: string[] = [], ports: Partial<HookPorts> = {}): HookSet {
  return new HookSet(parseHooksFile(yaml, 'hooks.yaml'), new Set(flags), {
    rateCounter: ports.rateCounter ?? new MemoryCounter(),
    webhooks: ports.webhooks ?? new WebhookSender(),
  });
}

const eventOf = (phase: HookEvent['phase'], caller = 'bot', target = skill): HookEvent => ({
  phase,
  skill: target,
  execution: { id: null, caller, sessionId: 's1', attempt: null, input: { token: 'secret', text: 'hi' } },
});

/** A loopback HTTP server that records each request and answers with the next status of `statuses` (then 200). */
async function receiver(statuses: number[] = [], delayMs = 0) {
  const received: { headers: http.IncomingHttpHeaders; body: any }[] = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: JSON.parse(text) });
      setTimeout(() => response.writeHead(statuses.shift() ?? 200).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the built-in actions', () => {
  it('deny refuses with its reason; require_tag refuses a skill without the tag', async () => {
    const set = setOf(`hooks:
  - { name: closed, phase: pre_flight, scope: { skills: [compare_results] }, action: { type: deny, reason: under maintenance } }
  - { name: stable_only, phase: pre_flight, action: { type: require_tag, tag: beta } }
`);
    await expect(runPhase(set.forSkill(skill).phase('pre_flight'), eventOf('pre_flight'), EMPTY_CONTEXT, quiet)).resolves.toBeDefined();
    await expect(
      runPhase(set.forSkill(other).phase('pre_flight'), eventOf('pre_flight', 'bot', other), EMPTY_CONTEXT, quiet),
    ).rejects.toMatchObject({ hook: 'closed', reason: 'under maintenance', action: 'deny' });
    const tagless = { ...skill, name: 'acme_other', tags: [] };
    await expect(
      runPhase(
        setOf(`hooks: [{ name: t, phase: pre_step, action: { type: require_tag, tag: beta } }]`).forSkill(tagless).phase('pre_step'),
        eventOf('pre_step', 'bot', tagless),
        EMPTY_CONTEXT,
        quiet,
      ),
    ).rejects.toMatchObject({ hook: 't', reason: "skill 'acme_other' is not tagged 'beta'", action: 'require_tag' });
  });

  it('rate_limit counts per caller per skill and refuses over the limit, saying when to come back', async () => {
    const counter = new MemoryCounter();
    const set = setOf(
      `hooks: [{ name: two_a_minute, phase: pre_flight, action: { type: rate_limit, limit: 2, window_seconds: 60 } }]`,
      [],
      {
        rateCounter: counter,
      },
    );
    const hooks = set.forSkill(skill).phase('pre_flight');
    await runPhase(hooks, eventOf('pre_flight', 'bot'), EMPTY_CONTEXT, quiet);
    await runPhase(hooks, eventOf('pre_flight', 'bot'), EMPTY_CONTEXT, quiet);
    await runPhase(hooks, eventOf('pre_flight', 'other bot'), EMPTY_CONTEXT, quiet);
    const refused = runPhase(hooks, eventOf('pre_flight', 'bot'), EMPTY_CONTEXT, quiet);
    await expect(refused).rejects.toBeInstanceOf(HookRefusal);
    await expect(refused).rejects.toMatchObject({ action: 'rate_limit', retryAfterSeconds: 42 });
    expect([...counter.counts.keys()].sort()).toEqual(['two_a_minute:acme_filter:bot', 'two_a_minute:acme_filter:other%20bot']);
  });

  it('annotate adds metadata; redact adds its pointers, which also hold from the run start', async () => {
    const set = setOf(`hooks:
  - { name: owner, phase: pre_step, action: { type: annotate, metadata: { team: cae, cost_center: 42 } } }
  - { name: strip, phase: pre_delivery, action: { type: redact, pointers: [/input/token] } }
`);
    const hooks = set.forSkill(skill);
    expect(hooks.initialContext()).toEqual({ metadata: {}, redactions: ['/input/token'] });
    const afterStep = await runPhase(hooks.phase('pre_step'), eventOf('pre_step'), hooks.initialContext(), quiet);
    expect(afterStep.metadata).toEqual({ team: 'cae', cost_center: 42 });
    const afterDelivery = await runPhase(hooks.phase('pre_delivery'), eventOf('pre_delivery'), afterStep, quiet);
    expect(afterDelivery.redactions).toEqual(['/input/token']);
  });

  it('leaves out hooks whose feature flag is off and hooks whose scope does not cover the skill', () => {
    const yaml = `hooks:
  - { name: flagged, phase: pre_step, requires_feature_flag: enable_audit, action: { type: annotate, metadata: { a: 1 } } }
  - { name: beta_only, phase: pre_step, scope: { tags: [beta] }, action: { type: annotate, metadata: { b: 1 } } }
`;
    expect(
      setOf(yaml)
        .forSkill(skill)
        .phase('pre_step')
        .map((h) => h.name),
    ).toEqual(['beta_only']);
    expect(
      setOf(yaml, ['enable_audit'])
        .forSkill(skill)
        .phase('pre_step')
        .map((h) => h.name),
    ).toEqual(['beta_only', 'flagged']);
    expect(setOf(yaml).forSkill(other).empty).toBe(true);
  });
});

describe('the webhook action', () => {
  it('POSTs a CloudEvents 1.0 structured JSON event with the run, redacted as the context says', async () => {
    const server = await receiver();
    try {
      const set = setOf(`hooks:
  - { name: notify, phase: pre_flight, action: { type: webhook, url: '${server.url}', headers: { X-Token: abc } } }
  - { name: strip, phase: pre_delivery, action: { type: redact, pointers: [/input/token] } }
`);
      const hooks = set.forSkill(skill);
      await runPhase(hooks.phase('pre_flight'), eventOf('pre_flight'), { ...hooks.initialContext(), metadata: { team: 'cae' } }, quiet);
      expect(server.received).toHaveLength(1);
      const [{ headers, body }] = server.received;
      expect(headers['content-type']).toBe('application/cloudevents+json; charset=utf-8');
      expect(headers['x-token']).toBe('abc');
      expect(body).toMatchObject({
        specversion: '1.0',
        type: 'dev.skill-registry.hook.pre_flight',
        source: '/skill-registry/hooks/notify',
        subject: 'acme_filter',
        datacontenttype: 'application/json',
        id: expect.any(String),
        time: expect.any(String),
        data: {
          hook: 'notify',
          phase: 'pre_flight',
          skill: { name: 'acme_filter', version: '1.0.0', domain: 'simulation', tags: ['beta'] },
          execution: { id: null, caller: 'bot', session_id: 's1', input: { text: 'hi' } },
          metadata: { team: 'cae' },
        },
      });
    } finally {
      await server.close();
    }
  });

  it('retries 5xx and then succeeds; gives up at once on a 4xx; a fail-closed webhook that fails stops the phase', async () => {
    const flaky = await receiver([503, 500]);
    const refusing = await receiver([400]);
    try {
      const sender = new WebhookSender();
      const target = { timeoutMs: 2000, retries: 3, headers: {} };
      const event = { type: 't', source: '/s', subject: 'x', executionId: 'e1', data: {} };
      await expect(sender.send({ ...target, url: flaky.url }, event)).resolves.toEqual({ tries: 3, status: 200 });
      expect(flaky.received[0]?.body.executionid).toBe('e1');
      await expect(sender.send({ ...target, url: refusing.url }, event)).rejects.toMatchObject({
        tries: 1,
        message: expect.stringContaining('400'),
      });
      const set = setOf(
        `hooks: [{ name: audit, phase: pre_step, fail_closed: true, action: { type: webhook, url: 'http://127.0.0.1:9/none', retries: 0 } }]`,
      );
      await expect(runPhase(set.forSkill(skill).phase('pre_step'), eventOf('pre_step'), EMPTY_CONTEXT, quiet)).rejects.toBeInstanceOf(
        HookFailure,
      );
    } finally {
      await flaky.close();
      await refusing.close();
    }
  });

  it('bounds each try by its timeout and reports an unreachable target', async () => {
    const slow = await receiver([], 3000);
    try {
      const sender = new WebhookSender();
      const event = { type: 't', source: '/s', subject: 'x', executionId: null, data: {} };
      await expect(sender.send({ url: slow.url, timeoutMs: 200, retries: 1, headers: {} }, event)).rejects.toMatchObject({
        tries: 2,
        message: expect.stringContaining('timed out'),
      });
      await expect(sender.send({ url: 'http://127.0.0.1:9/none', timeoutMs: 500, retries: 0, headers: {} }, event)).rejects.toBeInstanceOf(
        WebhookFailed,
      );
    } finally {
      await slow.close();
    }
  });
});

describe('the hooks file source', () => {
  it('reloads the file when it changes, and keeps the last good hooks when the change is invalid or the file goes', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hooks-file-'));
    const file = path.join(dir, 'hooks.yaml');
    const first = `hooks: [{ name: a, phase: pre_step, action: { type: annotate, metadata: { v: 1 } } }]`;
    await writeFile(file, first);
    const reloads: HooksReload[] = [];
    const source = new HooksFileSource({
      file: { path: file, hooks: parseHooksFile(first, file) },
      featureFlags: new Set(),
      ports: { rateCounter: new MemoryCounter(), webhooks: new WebhookSender() },
      debounceMs: 150,
      onReload: (reload) => reloads.push(reload),
    });
    const until = async (count: number) => {
      for (let waited = 0; reloads.length < count; waited += 20) {
        if (waited > 20_000) throw new Error(`no reload ${count}: ${JSON.stringify(reloads)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await source.settled();
    };
    try {
      await source.start();
      expect(source.current.definitions.map((hook) => hook.name)).toEqual(['a']);
      // Written as editors do: a new file renamed over the old one.
      await writeFile(`${file}.tmp`, `hooks: [{ name: b, phase: pre_step, action: { type: deny, reason: closed } }]`);
      await rename(`${file}.tmp`, file);
      await until(1);
      expect(reloads[0]).toEqual({ outcome: 'reloaded', hooks: 1 });
      expect(source.current.definitions.map((hook) => hook.name)).toEqual(['b']);
      await writeFile(file, 'hooks: [{ name: c, phase: nowhere }]');
      await until(2);
      expect(reloads[1]).toMatchObject({ outcome: 'kept', reason: expect.stringContaining('hooks[0].phase') });
      expect(source.current.definitions.map((hook) => hook.name)).toEqual(['b']);
      await rm(file);
      await until(3);
      expect(reloads[2]).toMatchObject({ outcome: 'kept' });
      expect(source.current.definitions.map((hook) => hook.name)).toEqual(['b']);
    } finally {
      await source.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
