// Drill: kill -9 the spice tool adapter (ngspice) in the middle of simulation/run_circuit_sim calls,
// keep it down a few seconds while more executions arrive, start it again, run more. Expected: the
// executions caught by the outage end with a clear tool error (never stuck, never a 5xx on REST),
// registry and executor stay up, and executions after the restart succeed soon.
//
//   node drills/adapter-kill.mjs [--down-seconds 5] [--in-flight 2] [--after 3]
//
// Registry and executor use the project's catalog (SKILL_PATHS=skills), a private database on the
// shared Postgres and a unique key prefix on the shared Redis.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { printTable, runDrill, seconds, sleep, waitFor } from './support/harness.mjs';
import { SHARED_REDIS_URL, sharedDatabase, sharedQueuePrefix } from './support/services.mjs';
import {
  REPO_ROOT,
  TERMINAL,
  api,
  descendants,
  executor,
  outcome,
  promote,
  registry,
  spiceAdapter,
  tally,
  waitTerminal,
} from './support/stack.mjs';

const SKILL = 'run_circuit_sim';
const CLEAR_CODES = ['TOOL_ERROR', 'TOOL_UNAVAILABLE', 'PRECONDITION_FAILED'];
// About 3 million internal steps: ngspice runs for several seconds, long enough to be killed mid-call.
const SLOW_INPUT = {
  netlist: 'slow rc for the adapter-kill drill\nV1 in 0 SIN(0 1 1k)\nR1 in out 1k\nC1 out 0 1u\n.end\n',
  analyses: [{ type: 'tran', step_s: 1e-3, stop_s: 3, max_step_s: 1e-6 }],
  vectors: ['v(out)'],
  return_vectors: false,
};

const args = {
  'down-seconds': { type: 'string', default: '5' },
  'in-flight': { type: 'string', default: '2' },
  after: { type: 'string', default: '3' },
};

runDrill(
  'adapter-kill',
  async (ctx) => {
    const definition = JSON.parse(await readFile(path.join(REPO_ROOT, 'skills/simulation', SKILL, 'definition.json'), 'utf8'));
    const example = definition.examples[0].input;
    const db = sharedDatabase();
    ctx.defer(() => db.drop());
    const queue = sharedQueuePrefix('adapter');
    ctx.defer(() => queue.cleanup());

    const spice = spiceAdapter({}, { logDir: ctx.logDir });
    const orphans = new Set();
    ctx.defer(async () => {
      for (const pid of orphans) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    });
    ctx.defer(() => spice.stop());
    await spice.start();
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: SHARED_REDIS_URL,
      QUEUE_PREFIX: queue.prefix,
      SKILL_PATHS: path.join(REPO_ROOT, 'skills'),
      TOOL_ADAPTERS: `spice=http://127.0.0.1:${spice.port}/mcp`,
    };
    const reg = registry(env, { logDir: ctx.logDir });
    ctx.defer(() => reg.stop());
    await reg.start();
    const ex = executor(env, { logDir: ctx.logDir });
    ctx.defer(() => ex.stop());
    await ex.start();
    await promote(reg.url, [[SKILL, definition.version]]);
    const client = api(reg.url);
    ctx.defer(() => client.close());

    const answers = []; // every REST answer of an execute call: { phase, status, ms, body }
    const submit = async (phase, input, wait) => {
      const response = await client.request(
        'POST',
        `/v1/skills/${SKILL}/executions${wait ? `?wait=${wait}` : ''}`,
        { input },
        { timeoutMs: 90_000 },
      );
      answers.push({ phase, status: response.status, ms: response.ms, body: response.body });
      return response;
    };

    ctx.log('baseline: 2 executions of the example');
    for (let i = 0; i < 2; i++) await submit('baseline', example, 60);

    ctx.log(`mid-call: ${ctx.values['in-flight']} slow simulations, adapter killed while ngspice runs`);
    const inFlight = [];
    for (let i = 0; i < Number(ctx.values['in-flight']); i++) {
      const response = await submit('mid-call', SLOW_INPUT, 0);
      if (response.body?.id) inFlight.push(response.body.id);
    }
    const ngspiceRuns = () => descendants(spice.pid()).filter((p) => p.name === 'ngspice');
    const simulating = await waitFor(async () => ngspiceRuns().length >= Number(ctx.values['in-flight']), 20_000, 50);
    await sleep(500);
    const programs = descendants(spice.pid()).map((p) => p.pid);
    const killedAt = Date.now();
    await spice.kill9();
    // Its ngspice runs (own process groups) outlive it; they are ours, so they go too, by pid.
    for (const pid of programs) {
      orphans.add(pid);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    ctx.log(`adapter killed with ${programs.length} child process(es) running (ngspice runs seen: ${Boolean(simulating)})`);

    const outage = [];
    const downUntil = killedAt + Number(ctx.values['down-seconds']) * 1000;
    for (let i = 0; Date.now() < downUntil; i++) {
      const response = await submit('outage', example, i % 2 === 0 ? 30 : 0);
      if (response.body?.id) outage.push(response.body.id);
      await sleep(1000);
    }

    await spice.start();
    const restartedAt = Date.now();
    ctx.log('adapter started again; waiting for the first success');
    let firstSuccessMs = null;
    let tries = 0;
    while (Date.now() - restartedAt < 60_000) {
      tries += 1;
      const response = await submit('first-success', example, 60);
      if (response.body?.status === 'SUCCEEDED') {
        firstSuccessMs = Date.now() - restartedAt;
        break;
      }
      await sleep(250);
    }
    for (let i = 0; i < Number(ctx.values.after); i++) await submit('after', example, 60);

    const affected = [...inFlight, ...outage];
    const final = await waitTerminal(client, affected, 150_000, 250);
    const ended = inFlight.map((id) => Date.parse(final.get(id)?.finished_at ?? '')).filter((t) => !Number.isNaN(t));
    const notTerminal = affected.filter((id) => !TERMINAL.has(final.get(id)?.status));
    const unclear = affected.filter((id) => {
      const e = final.get(id);
      return TERMINAL.has(e?.status) && e.status !== 'SUCCEEDED' && !CLEAR_CODES.includes(e.error?.code);
    });
    const serverErrors = answers.filter((a) => a.status === 0 || a.status >= 500);
    const after = answers.filter((a) => a.phase === 'after');
    const exits = [...reg.exits, ...ex.exits];

    console.log('\n-- executions by phase');
    const phases = ['baseline', 'mid-call', 'outage', 'first-success', 'after'];
    printTable(
      phases.map((phase) => {
        const of = answers.filter((a) => a.phase === phase);
        const outcomes = of.map((a) => outcome(phase === 'mid-call' || phase === 'outage' ? final.get(a.body?.id) : a.body));
        return { phase, executions: of.length, 'REST answers': tally(of.map((a) => a.status)), outcomes: tally(outcomes) };
      }),
    );
    console.log('\n-- figures');
    printTable([
      {
        'killed mid-call': inFlight.length,
        'mid-call ended after kill': ended.length ? seconds(Math.max(...ended) - killedAt) : '-',
        'not terminal': notTerminal.length,
        'unclear errors': unclear.length,
        'REST 5xx / no answer': serverErrors.length,
        'first success after restart': seconds(firstSuccessMs),
        'tries until success': tries,
        'process exits': exits.length,
      },
    ]);
    for (const exit of exits) console.log(`exit: ${exit.name} code ${exit.code} signal ${exit.signal}: ${exit.error}`);
    const messages = new Set(
      affected
        .map((id) => final.get(id)?.error)
        .filter(Boolean)
        .map((e) => `${e.code}: ${e.message}`.slice(0, 160)),
    );
    for (const message of messages) console.log(`error seen: ${message}`);

    ctx.figure('mid_call', tally(inFlight.map((id) => outcome(final.get(id)))));
    ctx.figure('outage', tally(outage.map((id) => outcome(final.get(id)))));
    ctx.figure('first_success_ms', firstSuccessMs);
    ctx.figure('process_exits', exits.length);
    ctx.check(
      'baseline executions succeeded',
      answers.filter((a) => a.phase === 'baseline').every((a) => a.body?.status === 'SUCCEEDED'),
    );
    ctx.check('adapter was killed mid-call', Boolean(simulating), `${programs.length} child process(es) of the adapter at the kill`);
    ctx.check('outage executions all terminal', notTerminal.length === 0, `${notTerminal.length} not terminal within 150 s`);
    ctx.check(`outage errors are ${CLEAR_CODES.join('/')}`, unclear.length === 0, tally(unclear.map((id) => outcome(final.get(id)))));
    ctx.check('no 5xx (or missing) REST answer', serverErrors.length === 0, tally(serverErrors.map((a) => a.status)));
    ctx.check('no registry/executor exit', exits.length === 0, `${exits.length} exits`);
    ctx.check('first success within 15 s of the restart', firstSuccessMs !== null && firstSuccessMs <= 15_000, seconds(firstSuccessMs));
    ctx.check(
      'executions after the restart succeed',
      after.every((a) => a.body?.status === 'SUCCEEDED'),
      tally(after.map((a) => outcome(a.body))),
    );
  },
  { args, timeoutMs: () => 10 * 60_000 },
);
