// Drill: kill -9 the executor while executions run, start a new one at once, and check that every
// execution still ends (none lost or stuck), no non-idempotent handler ran twice, and how long
// recovery takes. Registry and executors are the built processes, on a private database of the
// shared Postgres and a unique key prefix on the shared Redis (both removed at the end).
//
//   node drills/kill-executor.mjs [--rounds 30] [--per-round 8] [--executors 1] [--bound-seconds 60]
//
// The executor runs with its production defaults (LOCK_DURATION_MS, STALLED_INTERVAL_MS, HEARTBEAT_MS,
// RECONCILE_INTERVAL_MS) unless they are set in the environment: recovery time is measured as shipped.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { printTable, runDrill, seconds, sleep, spread, waitFor } from './support/harness.mjs';
import { SHARED_REDIS_URL, sharedDatabase, sharedQueuePrefix } from './support/services.mjs';
import { DRILL_SKILLS, IDEMPOTENT, ONCE, markerDir, writeDrillSkills } from './support/skills.mjs';
import { TERMINAL, api, executor, listExecutions, outcome, promote, registry, tally, waitTerminal } from './support/stack.mjs';

const args = {
  rounds: { type: 'string', default: '30' },
  'per-round': { type: 'string', default: '8' },
  executors: { type: 'string', default: '1' },
  'bound-seconds': { type: 'string', default: '60' },
};

async function markerLength(file) {
  try {
    return (await readFile(file, 'utf8')).length;
  } catch {
    return 0;
  }
}

runDrill(
  'kill-executor',
  async (ctx) => {
    const rounds = Number(ctx.values.rounds);
    const perRound = Number(ctx.values['per-round']);
    const executorCount = Number(ctx.values.executors);
    const boundMs = Number(ctx.values['bound-seconds']) * 1000;
    const concurrency = Number(process.env.EXECUTOR_CONCURRENCY ?? 4);

    const tmp = await ctx.tempDir('kill');
    const skillsRoot = path.join(tmp, 'skills');
    const markers = path.join(tmp, 'markers');
    await writeDrillSkills(skillsRoot);
    const markerAccess = await markerDir(markers);
    const db = sharedDatabase();
    ctx.defer(() => db.drop());
    const queue = sharedQueuePrefix('kill');
    ctx.defer(() => queue.cleanup());
    const env = { DATABASE_URL: db.url, REDIS_URL: SHARED_REDIS_URL, QUEUE_PREFIX: queue.prefix, SKILL_PATHS: skillsRoot };
    const settings = ['LOCK_DURATION_MS', 'STALLED_INTERVAL_MS', 'HEARTBEAT_MS', 'RECONCILE_INTERVAL_MS']
      .map((key) => `${key}=${process.env[key] ?? 'default'}`)
      .join(' ');
    ctx.log(
      `${rounds} rounds of ${perRound} executions (half ${IDEMPOTENT}, half ${ONCE}, 1–3 s each); ${executorCount} executor(s); ${settings}`,
    );

    const reg = registry(env, { logDir: ctx.logDir });
    ctx.defer(() => reg.stop());
    await reg.start();
    await promote(reg.url, DRILL_SKILLS);
    const executors = [];
    for (let i = 0; i < executorCount; i++) {
      const ex = executor({ ...env, ...markerAccess }, { logDir: ctx.logDir, name: `executor-${i + 1}` });
      ctx.defer(() => ex.stop());
      await ex.start();
      executors.push(ex);
    }
    const client = api(reg.url);
    ctx.defer(() => client.close());

    const rows = [];
    const recoveries = [];
    const takeovers = [];
    const all = new Map(); // id → { skill, marker }
    let lost = 0;
    let duplicated = 0;
    let submitErrors = 0;
    let restartFailures = 0;
    for (let round = 1; round <= rounds; round++) {
      const ids = [];
      for (let i = 0; i < perRound; i++) {
        const skill = i % 2 === 0 ? IDEMPOTENT : ONCE;
        const marker = path.join(markers, `r${round}-${i}`);
        const ms = 1000 + Math.floor(Math.random() * 2000);
        const response = await client.request('POST', `/v1/skills/${skill}/executions`, { input: { marker, ms } });
        if (response.status !== 202) {
          submitErrors += 1;
          ctx.log(`round ${round}: submit answered ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
          continue;
        }
        ids.push(response.body.id);
        all.set(response.body.id, { skill, marker });
      }
      // Kill while handlers sleep: once as many have started as the executors run at once, plus a random offset.
      const started = () => Promise.all(ids.map((id) => markerLength(all.get(id).marker))).then((n) => n.filter(Boolean).length);
      await waitFor(async () => (await started()) >= Math.min(ids.length, concurrency * executorCount), 5000, 25);
      await sleep(100 + Math.random() * 600);
      const inFlight = await started();
      const victim = executors[(round - 1) % executors.length];
      const killedAt = Date.now();
      await victim.kill9();
      const restarted = victim.start().catch((error) => {
        restartFailures += 1;
        ctx.log(`round ${round}: new executor did not start: ${error.message}`);
      });
      const final = await waitTerminal(client, ids, boundMs);
      await restarted;

      const notTerminal = ids.filter((id) => !TERMINAL.has(final.get(id)?.status));
      let roundDuplicates = 0;
      for (const id of ids) {
        const { skill, marker } = all.get(id);
        if (skill === ONCE && (await markerLength(marker)) > 1) roundDuplicates += 1;
      }
      const finishedAt = ids.map((id) => Date.parse(final.get(id)?.finished_at ?? '')).filter((t) => !Number.isNaN(t));
      // A lost execution counts as the bound: the recovery took at least that long.
      const recovery = notTerminal.length > 0 ? boundMs : Math.max(0, ...finishedAt.map((t) => t - killedAt));
      recoveries.push(recovery);
      // Takeover: when the dead worker's non-idempotent attempts were declared lost (recovery adds the
      // re-runs of the idempotent ones and the executions still queued at the kill).
      const lostAt = ids
        .filter((id) => final.get(id)?.error?.code === 'WORKER_LOST')
        .map((id) => Date.parse(final.get(id).finished_at) - killedAt);
      if (lostAt.length > 0) takeovers.push(Math.max(...lostAt));
      lost += notTerminal.length;
      duplicated += roundDuplicates;
      rows.push({
        round,
        executions: ids.length,
        'running at kill': inFlight,
        lost: notTerminal.length,
        duplicated: roundDuplicates,
        recovery: `${notTerminal.length > 0 ? '>' : ''}${seconds(recovery)}`,
        'WORKER_LOST after': lostAt.length > 0 ? seconds(Math.max(...lostAt)) : '-',
        outcomes: tally(ids.map((id) => outcome(final.get(id)))),
      });
      ctx.log(`round ${round}/${rounds}: ${JSON.stringify(rows.at(-1))}`);
    }

    // Whatever is still QUEUED/RUNNING now, after every round had its bound, is stuck.
    await sleep(1000);
    const stored = [...(await listExecutions(client, IDEMPOTENT)), ...(await listExecutions(client, ONCE))];
    const stuck = stored.filter((e) => !TERMINAL.has(e.status));
    let unrecordedRuns = 0;
    let retried = 0;
    for (const e of stored) {
      const runs = await markerLength(all.get(e.id)?.marker ?? '');
      if (runs > e.attempts) unrecordedRuns += 1;
      if (e.skill === IDEMPOTENT && e.attempts > 1) retried += 1;
    }
    const unexpectedExits = [reg, ...executors].flatMap((p) => p.exits);

    console.log('\n-- rounds');
    printTable(rows);
    const recovery = spread(recoveries);
    const takeover = spread(takeovers);
    console.log('\n-- totals');
    printTable([
      {
        rounds,
        executions: all.size,
        lost,
        duplicated,
        stuck: stuck.length,
        'recovery p50': seconds(recovery.p50),
        'recovery p95': seconds(recovery.p95),
        'recovery max': seconds(recovery.max),
        'takeover p50/p95/max': [takeover.p50, takeover.p95, takeover.max].map(seconds).join(' / '),
        'idempotent retried': retried,
        'runs not in attempts': unrecordedRuns,
        'submit errors': submitErrors,
        'unexpected exits': unexpectedExits.length,
      },
    ]);
    console.log(`outcomes: ${tally(stored.map(outcome))}`);
    for (const exit of unexpectedExits) console.log(`exit: ${exit.name} code ${exit.code} signal ${exit.signal}: ${exit.error}`);

    ctx.figure('executions', all.size);
    ctx.figure('lost', lost);
    ctx.figure('duplicated', duplicated);
    ctx.figure('stuck', stuck.length);
    ctx.figure('recovery_ms', recovery);
    ctx.figure('takeover_ms', takeover);
    ctx.figure('unexpected_exits', unexpectedExits.length);
    ctx.check('0 lost', lost === 0, `${lost} not terminal within ${boundMs / 1000} s of the kill`);
    ctx.check('0 duplicated', duplicated === 0, `${duplicated} ${ONCE} executions ran twice`);
    ctx.check('0 stuck', stuck.length === 0, `${stuck.length} QUEUED/RUNNING at the end`);
    ctx.check('recovery p95 <= 10 s', recovery.p95 !== null && recovery.p95 <= 10_000, `p95 ${seconds(recovery.p95)}`);
    ctx.check('no other process exit', unexpectedExits.length === 0 && restartFailures === 0, `${unexpectedExits.length} exits`);
    ctx.check('every submission accepted', submitErrors === 0, `${submitErrors} refused`);
  },
  { args, timeoutMs: (v) => Number(v.rounds) * (Number(v['bound-seconds']) + 30) * 1000 + 180_000 },
);
