// The body of the dependency-outage drills (Postgres restart, Redis restart): registry + executor
// under steady load while `disrupt(i)` takes the dependency away and back, then the figures:
// process exits, error answers that are not quick 503 problems, readiness, and whether every
// accepted execution ended (SUCCEEDED, its handler run once).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { judgeAnswers, inWindows, startHealthProbes, startLoad } from './load.mjs';
import { printTable, seconds, sleep, waitFor } from './harness.mjs';
import { DRILL_SKILLS, ONCE, markerDir, writeDrillSkills } from './skills.mjs';
import { TERMINAL, api, executor, listExecutions, outcome, promote, registry, tally, waitTerminal } from './stack.mjs';

async function runs(marker) {
  try {
    return (await readFile(marker, 'utf8')).length;
  } catch {
    return 0;
  }
}

/**
 * options: { env, restarts, rate, handlerMs, gapMs, settleMs, codes (accepted 503 codes), expectNotReady (bool),
 * disrupt(i) → Promise<{ from, to, label }> }.
 */
export async function runOutageDrill(ctx, options) {
  const tmp = await ctx.tempDir('outage');
  const skillsRoot = path.join(tmp, 'skills');
  const markers = path.join(tmp, 'markers');
  await writeDrillSkills(skillsRoot);
  const markerAccess = await markerDir(markers);
  const env = { ...options.env, SKILL_PATHS: skillsRoot };

  // Restarted when they die, so the rest of the drill still measures something; each exit is a failure.
  const reg = registry(env, { logDir: ctx.logDir, restartOnExit: true });
  ctx.defer(() => reg.stop());
  await reg.start();
  await promote(reg.url, DRILL_SKILLS);
  const ex = executor({ ...env, ...markerAccess }, { logDir: ctx.logDir, restartOnExit: true });
  ctx.defer(() => ex.stop());
  await ex.start();

  const probes = startHealthProbes({ registry: reg.url, executor: ex.url });
  const load = startLoad({ registryUrl: reg.url, rate: options.rate, markersDir: markers, handlerMs: options.handlerMs });
  ctx.defer(() => load.stop());
  ctx.defer(() => probes.stop());
  ctx.log(`load: ${options.rate} req/s, executions of ${ONCE} sleeping ${options.handlerMs} ms; warming up`);
  await sleep(5000);
  const windows = [];
  for (let i = 0; i < options.restarts; i++) {
    const window = await options.disrupt(i);
    windows.push(window);
    ctx.log(`${window.label}: dependency away for ${seconds(window.to - window.from)}`);
    await sleep(options.gapMs);
  }
  ctx.log('load stopping');
  await load.stop();
  await probes.stop();

  // Readiness after the last outage, and every accepted execution settled.
  const client = api(reg.url);
  const executorClient = api(ex.url);
  ctx.defer(() => client.close());
  ctx.defer(() => executorClient.close());
  const readyAfter = await waitFor(async () => {
    const [r, e] = await Promise.all([client.request('GET', '/readyz'), executorClient.request('GET', '/readyz')]);
    return r.status === 200 && e.status === 200;
  }, 30_000);
  ctx.log(`waiting for ${load.accepted.size} accepted executions to end (≤ ${options.settleMs / 1000} s)`);
  const settleStart = Date.now();
  const final = await waitTerminal(client, [...load.accepted.keys()], options.settleMs, 500);
  const settleMs = Date.now() - settleStart;
  const stored = await listExecutions(client, ONCE);

  // Judging.
  const verdict = judgeAnswers(load.records, windows, { codes: options.codes });
  const acceptedIds = [...load.accepted.keys()];
  const notTerminal = acceptedIds.filter((id) => !TERMINAL.has(final.get(id)?.status));
  const notSucceeded = acceptedIds.filter((id) => final.get(id)?.status !== 'SUCCEEDED');
  const stuck = stored.filter((e) => !TERMINAL.has(e.status));
  const orphans = stored.filter((e) => !load.accepted.has(e.id)); // stored, but the client got an error
  let twice = 0;
  for (const marker of load.accepted.values()) if ((await runs(marker)) > 1) twice += 1;
  const exits = [...reg.exits, ...ex.exits];
  const readyz = (target) => probes.samples.filter((s) => s.target === target);
  const duringOutage = (samples) => samples.filter((s) => inWindows(s.sentAt, windows, 1000));
  const notReadyDuring = duringOutage(readyz('registry/readyz')).filter((s) => s.status !== 200).length;
  const healthFailures = probes.samples.filter((s) => s.target.endsWith('/healthz') && s.status !== 200);

  console.log('\n-- outages');
  printTable(
    windows.map((w) => {
      const answers = verdict.during.filter((r) => inWindows(r.sentAt, [w], 3000));
      return {
        outage: w.label,
        down: seconds(w.to - w.from),
        'answers (±3 s)': answers.length,
        errors: answers.filter((r) => r.status === 0 || r.status >= 400).length,
        'registry readyz not 200': duringOutage(readyz('registry/readyz')).filter((s) => inWindows(s.sentAt, [w], 1000) && s.status !== 200)
          .length,
        'executor readyz not 200': duringOutage(readyz('executor/readyz')).filter((s) => inWindows(s.sentAt, [w], 1000) && s.status !== 200)
          .length,
      };
    }),
  );
  console.log('\n-- answers');
  const byOp = new Map();
  for (const r of load.records) {
    const row = byOp.get(r.op) ?? { operation: r.op, answers: 0, ok: 0, '503 problem': 0, 'non-503 errors': 0, 'slow (>2 s)': 0 };
    row.answers += 1;
    if (r.status > 0 && r.status < 400) row.ok += 1;
    if (verdict.errors.includes(r) && !verdict.non503.includes(r)) row['503 problem'] += 1;
    if (verdict.non503.includes(r)) row['non-503 errors'] += 1;
    if (verdict.slow.includes(r)) row['slow (>2 s)'] += 1;
    byOp.set(r.op, row);
  }
  printTable([...byOp.values()]);
  console.log(`error answers: ${tally(verdict.errors.map(verdict.label))}`);
  if (verdict.slow.length > 0)
    console.log(
      `slowest answers: ${verdict.slow
        .map((r) => `${r.op} ${verdict.label(r)} ${seconds(r.ms)}`)
        .slice(0, 8)
        .join('; ')}`,
    );
  console.log('\n-- executions');
  printTable([
    {
      accepted: acceptedIds.length,
      'not terminal': notTerminal.length,
      'not SUCCEEDED': notSucceeded.length,
      'ran twice': twice,
      'stuck (stored)': stuck.length,
      'stored, refused to client': orphans.length,
      'settled in': seconds(settleMs),
      'load skipped (100 in flight)': load.skipped(),
    },
  ]);
  console.log(`outcomes: ${tally(acceptedIds.map((id) => outcome(final.get(id))))}`);
  console.log(`process exits: ${exits.length}${exits.map((e) => `\n  ${e.name} code ${e.code} signal ${e.signal}: ${e.error}`).join('')}`);
  console.log(`healthz not 200: ${healthFailures.length} (${tally(healthFailures.map((s) => `${s.target} ${s.status || 'no answer'}`))})`);

  ctx.figure('process_exits', exits.length);
  ctx.figure('answers', verdict.total);
  ctx.figure('non_503_errors', verdict.non503.length);
  ctx.figure('slow_answers', verdict.slow.length);
  ctx.figure('accepted', acceptedIds.length);
  ctx.figure('not_terminal', notTerminal.length);
  ctx.figure('not_succeeded', notSucceeded.length);
  ctx.figure('ran_twice', twice);
  ctx.check('no process exit', exits.length === 0, `${exits.length} exits`);
  ctx.check('every error answer a 503 problem', verdict.non503.length === 0, tally(verdict.non503.map(verdict.label)));
  ctx.check('error answers (and reads) within 2 s', verdict.slow.length === 0, `${verdict.slow.length} slow`);
  ctx.check('every accepted execution terminal', notTerminal.length === 0, `${notTerminal.length} of ${acceptedIds.length} not`);
  ctx.check(`every accepted execution SUCCEEDED`, notSucceeded.length === 0, tally(notSucceeded.map((id) => outcome(final.get(id)))));
  ctx.check('no handler ran twice', twice === 0, `${twice} twice`);
  ctx.check('nothing stuck QUEUED/RUNNING', stuck.length === 0, `${stuck.length} stuck`);
  ctx.check('/healthz 200 throughout', healthFailures.length === 0, `${healthFailures.length} not 200`);
  if (options.expectNotReady) {
    ctx.check('registry /readyz not ready during the outage', notReadyDuring > 0, `${notReadyDuring} non-200 samples`);
  }
  ctx.check('/readyz ready after recovery', Boolean(readyAfter), readyAfter ? 'registry and executor' : 'not within 30 s');
}
