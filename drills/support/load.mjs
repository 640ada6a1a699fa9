// Steady open-loop load on the registry (executions with and without ?wait=, skill reads, execution
// lists) and health probes of the registry and executor, every answer recorded with its send time,
// so answers can be judged against the outage windows afterwards.
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { sleep } from './harness.mjs';
import { ONCE } from './skills.mjs';
import { api } from './stack.mjs';

const OPERATIONS = [
  { op: 'execute?wait', method: 'POST', route: `/v1/skills/${ONCE}/executions?wait=10`, execute: true, waits: true },
  { op: 'get skill', method: 'GET', route: `/v1/skills/${ONCE}` },
  { op: 'execute', method: 'POST', route: `/v1/skills/${ONCE}/executions`, execute: true },
  { op: 'list skills', method: 'GET', route: '/v1/skills?limit=20' },
  { op: 'list executions', method: 'GET', route: '/v1/executions?limit=20' },
];
const MAX_IN_FLIGHT = 100;

/**
 * Starts the load: `rate` requests per second spread over OPERATIONS, executions of ONCE sleeping
 * `handlerMs` with one marker file each under `markersDir`. Returns { records, accepted, stop() }.
 */
export function startLoad({ registryUrl, rate, markersDir, handlerMs = 200 }) {
  const client = api(registryUrl);
  const records = [];
  const accepted = new Map(); // execution id → marker
  let inFlight = 0;
  let skipped = 0;
  let sequence = 0;
  const pending = new Set();

  const fire = () => {
    if (inFlight >= MAX_IN_FLIGHT) {
      skipped += 1;
      return;
    }
    const operation = OPERATIONS[sequence % OPERATIONS.length];
    const marker = path.join(markersDir, `m${sequence}`);
    sequence += 1;
    inFlight += 1;
    const sentAt = Date.now();
    const body = operation.execute ? { input: { marker, ms: handlerMs } } : undefined;
    const request = client.request(operation.method, operation.route, body, { timeoutMs: operation.waits ? 20_000 : 10_000 }).then((r) => {
      inFlight -= 1;
      const problem = String(r.headers?.['content-type'] ?? '').includes('application/problem+json');
      records.push({
        op: operation.op,
        waits: Boolean(operation.waits),
        sentAt,
        ms: r.ms,
        status: r.status,
        code: r.body?.code ?? null,
        problem,
        error: r.error,
      });
      if (operation.execute && (r.status === 200 || r.status === 202) && r.body?.id) accepted.set(r.body.id, marker);
    });
    pending.add(request);
    request.finally(() => pending.delete(request));
  };
  const timer = setInterval(fire, Math.max(1, Math.round(1000 / rate)));

  return {
    records,
    accepted,
    skipped: () => skipped,
    /** Stops sending; waits (bounded) for the answers still due. */
    async stop() {
      clearInterval(timer);
      await Promise.race([Promise.allSettled([...pending]), sleep(25_000)]);
      client.close();
    },
  };
}

/**
 * Probes `targets` ({ name: baseUrl }) on /healthz and /readyz every `everyMs` without waiting for the
 * previous answer (a probe that hangs shows up as slow, not as missing samples).
 */
export function startHealthProbes(targets, everyMs = 100) {
  const samples = [];
  const clients = Object.fromEntries(Object.entries(targets).map(([name, url]) => [name, api(url)]));
  const probe = () => {
    for (const [name, client] of Object.entries(clients)) {
      for (const route of ['/healthz', '/readyz']) {
        const sentAt = Date.now();
        client
          .request('GET', route, undefined, { timeoutMs: 5000 })
          .then((r) => samples.push({ target: `${name}${route}`, sentAt, ms: r.ms, status: r.status }));
      }
    }
  };
  const timer = setInterval(probe, everyMs);
  return {
    samples,
    async stop() {
      clearInterval(timer);
      await sleep(5500);
      for (const client of Object.values(clients)) client.close();
    },
  };
}

/** Whether `t` falls in one of the windows ({ from, to }), each widened by `graceMs` at its end. */
export function inWindows(t, windows, graceMs = 0) {
  return windows.some((w) => t >= w.from && t <= w.to + graceMs);
}

/**
 * Judges the recorded answers. An error answer is fine only as a 503 problem with one of `codes`
 * within `slowMs`; any answer not waiting on an execution must also come within `slowMs`.
 */
export function judgeAnswers(records, windows, { codes, slowMs = 2000, graceMs = 3000 }) {
  const isError = (r) => r.status === 0 || r.status >= 400;
  const errors = records.filter(isError);
  const proper = (r) => r.status === 503 && r.problem && codes.includes(r.code);
  const non503 = errors.filter((r) => !proper(r));
  const slow = records.filter((r) => (isError(r) || !r.waits) && r.ms > slowMs);
  const during = records.filter((r) => inWindows(r.sentAt, windows, graceMs));
  const label = (r) => (r.status === 0 ? `no answer (${r.error})` : `${r.status}${r.code ? ` ${r.code}` : ''}`);
  return { total: records.length, errors, non503, slow, during, label };
}
