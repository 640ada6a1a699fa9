// Drill: a real engineering run as an MCP task across a registry restart (issue 26 §2). simulation/run_thermal
// runs a transient CalculiX heat-transfer solve on a structured block (about two minutes on a loaded 2-core
// machine: --increments sets the length) as a 2025-11-25 task-augmented tools/call through the MCP SDK client.
// While ccx runs, the registry is stopped and started again; a new session of the same token polls tasks/get
// until the task completes and reads the result with tasks/result. Expected: the task is found after the
// restart, completes, and its result has the block's temperatures (20 at the bottom, 100 at the top).
//
//   node drills/mcp-task-calculix.mjs [--increments 1200] [--block 10] [--restart-after 15]
//
// Registry, executor and the CalculiX adapter run as processes on a private database of the shared Postgres
// and a unique key prefix on the shared Redis; not part of `npm run drill` (it restarts nothing shared).
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { serviceEntry } from '../scripts/service-entries.mjs';
import { runDrill, seconds, sleep, waitFor } from './support/harness.mjs';
import { SHARED_REDIS_URL, sharedDatabase, sharedQueuePrefix } from './support/services.mjs';
import { ADMIN_TOKEN, REPO_ROOT, executor, promote, registry } from './support/stack.mjs';

const SKILL = 'run_thermal';
const anyResult = z.looseObject({});

const args = {
  increments: { type: 'string', default: '1200' },
  block: { type: 'string', default: '10' },
  'restart-after': { type: 'string', default: '15' },
};

/** A structured n×n×n C3D8 steel block, bottom held at 20 and top at 100, `increments` fixed transient increments. */
function thermalDeck(n, increments) {
  const id = (i, j, k) => 1 + i + j * (n + 1) + k * (n + 1) * (n + 1);
  const lines = ['*HEADING', `block ${n}x${n}x${n}, transient heat transfer (mcp-task-calculix drill)`, '*NODE, NSET=NALL'];
  for (let k = 0; k <= n; k++) for (let j = 0; j <= n; j++) for (let i = 0; i <= n; i++) lines.push(`${id(i, j, k)}, ${i}., ${j}., ${k}.`);
  lines.push('*ELEMENT, TYPE=C3D8, ELSET=BLOCK');
  let element = 1;
  for (let k = 0; k < n; k++) {
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        const corners = [
          id(i, j, k),
          id(i + 1, j, k),
          id(i + 1, j + 1, k),
          id(i, j + 1, k),
          id(i, j, k + 1),
          id(i + 1, j, k + 1),
          id(i + 1, j + 1, k + 1),
          id(i, j + 1, k + 1),
        ];
        lines.push(`${element++}, ${corners.join(', ')}`);
      }
    }
  }
  const face = (k) => Array.from({ length: (n + 1) * (n + 1) }, (_, index) => id(index % (n + 1), Math.floor(index / (n + 1)), k));
  const nodeSet = (name, ids) => [
    `*NSET, NSET=${name}`,
    ...Array.from({ length: Math.ceil(ids.length / 16) }, (_, c) => `${ids.slice(c * 16, c * 16 + 16).join(', ')},`),
  ];
  lines.push(...nodeSet('BOTTOM', face(0)), ...nodeSet('TOP', face(n)));
  lines.push('*MATERIAL, NAME=STEEL', '*CONDUCTIVITY', '50.', '*DENSITY', '7.85e-9', '*SPECIFIC HEAT', '4.6e8');
  lines.push('*SOLID SECTION, ELSET=BLOCK, MATERIAL=STEEL', '*INITIAL CONDITIONS, TYPE=TEMPERATURE', 'NALL, 20.');
  lines.push('*STEP, INC=1000000', '*HEAT TRANSFER, DIRECT', `0.01, ${(increments * 0.01).toFixed(2)}`);
  lines.push('*BOUNDARY', 'BOTTOM, 11, 11, 20.', 'TOP, 11, 11, 100.', '*NODE FILE, FREQUENCY=1000000', 'NT', '*END STEP');
  return `${lines.join('\n')}\n`;
}

/** The built CalculiX adapter on a free port; ready once /healthz answers. */
async function startCalculix(ctx) {
  const { freePort } = await import('../bench/support/registry-process.mjs');
  const port = await freePort();
  const child = spawn(process.execPath, [serviceEntry('calculix')], {
    cwd: REPO_ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', MAX_RUN_SECONDS: '600' },
    stdio: 'ignore',
  });
  ctx.defer(() => child.kill('SIGTERM'));
  const url = `http://127.0.0.1:${port}`;
  const up = await waitFor(async () => child.exitCode === null && (await fetch(`${url}/healthz`).catch(() => null))?.ok, 20_000);
  if (!up) throw new Error('the calculix adapter did not start');
  return url;
}

async function connect(url) {
  const client = new Client({ name: 'mcp-task-calculix-drill', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: { token: async () => ADMIN_TOKEN } }));
  return client;
}

runDrill(
  'mcp-task-calculix',
  async (ctx) => {
    const definition = JSON.parse(await readFile(path.join(REPO_ROOT, 'skills/simulation', SKILL, 'definition.json'), 'utf8'));
    const db = sharedDatabase();
    ctx.defer(() => db.drop());
    const queue = sharedQueuePrefix('mcp-task');
    ctx.defer(() => queue.cleanup());
    const calculix = await startCalculix(ctx);
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: SHARED_REDIS_URL,
      QUEUE_PREFIX: queue.prefix,
      SKILL_PATHS: path.join(REPO_ROOT, 'skills'),
      TOOL_ADAPTERS: `calculix=${calculix}/mcp`,
    };
    const reg = registry(env, { logDir: ctx.logDir });
    ctx.defer(() => reg.stop());
    await reg.start();
    const ex = executor(env, { logDir: ctx.logDir });
    ctx.defer(() => ex.stop());
    await ex.start();
    await promote(reg.url, [[SKILL, definition.version]]);

    const block = Number(ctx.values.block);
    const increments = Number(ctx.values.increments);
    const first = await connect(reg.url);
    const tool = (await first.listTools()).tools.find((candidate) => candidate.name === SKILL);
    ctx.check(
      `${SKILL} declares execution.taskSupport optional (timeout ${definition.timeout_seconds} s)`,
      tool?.execution?.taskSupport === 'optional',
      tool?.execution?.taskSupport,
    );
    const started = Date.now();
    const created = await first.request(
      { method: 'tools/call', params: { name: SKILL, arguments: { deck_inp: thermalDeck(block, increments) }, task: { ttl: 3_600_000 } } },
      anyResult,
    );
    const taskId = created.task.taskId;
    ctx.log(
      `task ${taskId} created (${created.task.status}, poll every ${created.task.pollInterval} ms); ccx: ${block}^3 block, ${increments} increments`,
    );
    ctx.check('the CreateTaskResult answered at once', Date.now() - started < 10_000, `${Date.now() - started} ms`);
    await first.close().catch(() => undefined);

    await sleep(Number(ctx.values['restart-after']) * 1000);
    const before = await fetch(`${reg.url}/v1/executions/${taskId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) =>
      r.json(),
    );
    ctx.log(`execution ${before.status} when the registry is restarted`);
    ctx.check('the execution was running when the registry went down', before.status === 'RUNNING', before.status);
    await reg.stop();
    const stoppedAt = Date.now();
    await reg.start();
    ctx.log(`registry started again in ${seconds(Date.now() - stoppedAt)}`);

    const after = await connect(reg.url);
    ctx.defer(() => after.close());
    let polls = 0;
    let task = null;
    const deadline = Date.now() + 30 * 60_000;
    while (Date.now() < deadline) {
      task = await after.request({ method: 'tasks/get', params: { taskId } }, anyResult);
      polls += 1;
      if (['completed', 'failed', 'cancelled'].includes(task.status)) break;
      await sleep(task.pollInterval ?? 2000);
    }
    const totalMs = Date.now() - started;
    ctx.log(`task ${task?.status} after ${seconds(totalMs)} and ${polls} polls on the new registry`);
    ctx.check('the task completed after the restart', task?.status === 'completed', `${task?.status}: ${task?.statusMessage ?? ''}`);
    const result = await after.request({ method: 'tasks/result', params: { taskId } }, anyResult);
    const output = result.structuredContent ?? {};
    const extremes = JSON.stringify(output).match(/"(min|max)":(-?[\d.e+]+)/g) ?? [];
    ctx.log(`result: ${JSON.stringify(output).slice(0, 300)}`);
    ctx.check(
      'tasks/result has the solve (no error, structured output)',
      result.isError !== true && Object.keys(output).length > 0,
      JSON.stringify(result.content?.[0]).slice(0, 200),
    );
    ctx.check('tied to its task', result._meta?.['io.modelcontextprotocol/related-task']?.taskId === taskId);
    ctx.figure('run_seconds', Math.round(totalMs / 1000));
    ctx.figure('polls_after_restart', polls);
    ctx.figure('temperature_extremes', extremes.slice(0, 4).join(' '));
  },
  { args, timeoutMs: () => 40 * 60_000 },
);
