// bench/executor/ab.mjs: `?wait` latency of two (or more) built checkouts measured side by side, for a change whose
// effect is smaller than this machine's drift between runs (20–30%, and more on a shared VM): each tree's registry
// and executor run at once, on their own database and queue prefix, and one client alternates between them —
// a call to the first, then to the second, ... — so whatever slows the machine slows every tree alike.
// Usage: node scripts/build-if-changed.mjs in each tree (a `git worktree` of the other commit, with node_modules
// linked), then: AB_TREES=/path/to/old,/path/to/new node bench/executor/ab.mjs
// Env: AB_TREES (comma-separated checkouts, default this one twice), BENCH_SYNC_SAMPLES (1500 calls each),
// BENCH_WARMUP (1000 calls each first), AB_CONCURRENCY (1: calls of a tree in flight at once; each round waits for all),
// AB_EXECUTOR_ENVS (variables for each tree's executor, `|` between trees, `K=V K=V` within one: two settings of one
// checkout side by side), AB_TURN (throughput instead: each tree in turn runs a closed loop of this many calls with
// AB_CONCURRENCY callers, the order reversed every other round, BENCH_SYNC_SAMPLES / AB_TURN rounds; executions/s),
// AB_NODE_ARGS (Node options for each tree's registry and executor, `|` between trees; BENCH_NODE_ARGS for one tree),
// AB_REGISTRY_ENVS (as AB_EXECUTOR_ENVS, for each tree's registry), AB_GAP_MS (a pause after each call: without one, what
// a tree's executor does after its call's answer falls on the next tree's call, so a change that moves work after the
// answer looks faster and makes the other tree slower), AB_SIMULTANEOUS=1 (each tree's own closed loop, all at once: its
// back-to-back calls as bench:executor makes them, the other trees' work falling on it at random moments).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';
import { httpClient } from '../support/http-client.mjs';
import { closedLoop, combineRuns, percentile } from './closed-loop.mjs';
import { writeSkill } from './skill-fixture.mjs';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TREES = (process.env.AB_TREES ?? `${HERE},${HERE}`).split(',').map((tree) => path.resolve(tree));
const SAMPLES = Number(process.env.BENCH_SYNC_SAMPLES ?? 1500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const CONCURRENCY = Number(process.env.AB_CONCURRENCY ?? 1);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** `K=V K=V|K=V` → one object of variables per tree. */
const envsPerTree = (spec) =>
  (spec ?? '').split('|').map((variables) =>
    Object.fromEntries(
      variables
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map((pair) => pair.split('=')),
    ),
  );
const EXECUTOR_ENVS = envsPerTree(process.env.AB_EXECUTOR_ENVS);
const REGISTRY_ENVS = envsPerTree(process.env.AB_REGISTRY_ENVS);
const TURN = Number(process.env.AB_TURN ?? 0);
/** A pause after each `?wait` call (ms): calls that meet an idle system, each process done with the one before. */
const GAP_MS = Number(process.env.AB_GAP_MS ?? 0);
/** Each tree's calls in a closed loop of its own, all trees at once, instead of one client alternating between them. */
const SIMULTANEOUS = process.env.AB_SIMULTANEOUS === '1';
/** Extra Node options for each tree's registry and executor (`|` between trees), as BENCH_NODE_ARGS is for one. */
const NODE_ARGS = process.env.AB_NODE_ARGS?.split('|').map((args) => args.trim());

const root = await mkdtemp(path.join(os.tmpdir(), 'bench-ab-'));
const stacks = [];
try {
  await writeSkill(root, 'bench_noop', 'return { n: input.n };', 30);
  for (const [index, tree] of TREES.entries()) {
    // Each tree starts its processes with its own support code, from its own dist/.
    const support = await import(path.join(tree, 'bench/support/registry-process.mjs'));
    const { startExecutorProcess } = await import(path.join(tree, 'bench/support/executor-process.mjs'));
    const env = {
      DATABASE_URL: support.benchDatabaseUrl(),
      SKILL_PATHS: root,
      QUEUE_PREFIX: `bench-ab-${process.pid}-${index}`,
      REDIS_URL,
      DATABASE_POOL_SIZE: '20',
    };
    const executorEnv = EXECUTOR_ENVS[index] ?? {};
    const registryEnv = REGISTRY_ENVS[index] ?? {};
    const settings = (variables, who) =>
      Object.entries(variables)
        .map(([key, value]) => ` ${who}${key}=${value}`)
        .join('');
    const label = `${tree}${settings(registryEnv, 'registry ')}${settings(executorEnv, '')}`;
    const nodeArgs = NODE_ARGS?.[index];
    if (nodeArgs !== undefined) process.env.BENCH_NODE_ARGS = nodeArgs;
    const stack = { tree, label: `${label}${nodeArgs ? ` node ${nodeArgs}` : ''}`, support, env, executorEnv, times: [], runs: [] };
    stacks.push(stack);
    stack.registry = await support.startRegistryProcess({ ...env, ...registryEnv });
    await fetch(`${stack.registry.url}/v1/admin/skills/bench_noop/versions/1.0.0/promote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${support.ADMIN_TOKEN}` },
      body: JSON.stringify({ force: true, reason: 'benchmark' }),
    });
    stack.executor = await startExecutorProcess({ ...env, EXECUTOR_CONCURRENCY: '32', ...executorEnv });
    stack.client = httpClient(stack.registry.url, Math.max(4, CONCURRENCY));
  }
  const call = async (stack, n) => {
    const sent = performance.now();
    const { status, body } = await stack.client.request('POST', '/v1/skills/bench_noop/executions?wait=30', { input: { n } });
    if (status !== 200 || body.status !== 'SUCCEEDED') throw new Error(`${stack.tree}: ${status} ${JSON.stringify(body).slice(0, 300)}`);
    return performance.now() - sent;
  };
  if (TURN > 0) {
    for (const stack of stacks) await closedLoop(WARMUP, CONCURRENCY, () => call(stack, 1));
    const rounds = Math.max(1, Math.round(SAMPLES / TURN));
    for (let round = 0; round < rounds; round++) {
      const figures = [];
      for (const stack of round % 2 === 0 ? stacks : [...stacks].reverse()) {
        const run = await closedLoop(TURN, CONCURRENCY, () => call(stack, 1));
        stack.runs.push(run);
        figures.push(`${run.perSecond.toFixed(0)}/s`);
      }
      console.log(`round ${round + 1}: ${figures.join(', ')}`);
    }
    console.log(`closed loops of ${TURN} calls with ${CONCURRENCY} callers, ${rounds} turns per tree, alternating:`);
    const base = combineRuns(stacks[0].runs).perSecond;
    for (const { label, runs } of stacks) {
      const all = combineRuns(runs);
      console.log(
        `${label}: ${all.perSecond.toFixed(0)}/s (${(all.perSecond / base).toFixed(3)} of the first), p50 ${all.p50.toFixed(2)} ms`,
      );
    }
  } else if (SIMULTANEOUS) {
    for (const stack of stacks) await closedLoop(WARMUP, CONCURRENCY, () => call(stack, 1));
    const runs = await Promise.all(stacks.map((stack) => closedLoop(SAMPLES, CONCURRENCY, () => call(stack, 1))));
    runs.forEach((run, index) => stacks[index].times.push(...run.latencies));
  } else {
    for (let round = 0; round < WARMUP + SAMPLES; round++) {
      for (const stack of stacks) {
        const times = await Promise.all(Array.from({ length: CONCURRENCY }, (_, index) => call(stack, round * CONCURRENCY + index)));
        if (round >= WARMUP) stack.times.push(...times);
        if (GAP_MS > 0) await new Promise((resolve) => setTimeout(resolve, GAP_MS));
      }
    }
  }
  if (TURN === 0) {
    const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
    console.log(
      SIMULTANEOUS
        ? `?wait, ${SAMPLES} calls per tree, ${CONCURRENCY} at a time, every tree's loop at once, ms:`
        : `?wait, ${SAMPLES} rounds of ${CONCURRENCY} call(s) per tree, alternating, ms:`,
    );
    console.log('tree'.padEnd(40) + ['p50', 'p90', 'p99', 'mean'].map((name) => name.padStart(9)).join(''));
    for (const { label, times } of stacks) {
      const figures = [percentile(times, 50), percentile(times, 90), percentile(times, 99), mean(times)];
      console.log(label.padEnd(40) + figures.map((figure) => figure.toFixed(2).padStart(9)).join(''));
    }
    const base = percentile(stacks[0].times, 50);
    console.log(`p50 as a ratio to the first tree's: ${stacks.map((stack) => (percentile(stack.times, 50) / base).toFixed(3)).join(', ')}`);
  }
} finally {
  for (const stack of stacks) {
    stack.client?.close();
    if (stack.executor) await stack.support.stopProcess(stack.executor.child);
    if (stack.registry) await stack.support.stopProcess(stack.registry.child);
    await stack.support.dropDatabase(stack.env.DATABASE_URL).catch(() => undefined);
    await deleteRedisKeys(REDIS_URL, stack.env.QUEUE_PREFIX).catch(() => undefined);
  }
  await rm(root, { recursive: true, force: true });
}
