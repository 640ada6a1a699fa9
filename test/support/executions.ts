import { chmod, mkdir, mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { EXECUTION_QUEUE, lifecycleStream, platformEventsStream } from '#executions/index.js';
import { ADMIN_TOKEN, call } from './registry.js';
import { REPO_ROOT } from './skill-packages.js';
import { deleteRedisKeys } from '../../bench/support/redis-cleanup.mjs';

/** Test-only skill packages for the failure cases (never part of the production catalog). */
export const EXECUTION_SKILLS_ROOT = path.join(REPO_ROOT, 'test/fixtures/execution-skills');

/**
 * Removes a test's keys from the machine's shared Redis once its apps are stopped: the BullMQ
 * queue (finished jobs are otherwise kept until later jobs of the same queue trim them, which never
 * come), the lifecycle stream, the platform's event stream, and every other key under the prefix: execution event
 * streams expire only a week after their execution's end, and a suite run many times a day filled Redis with them.
 */
export async function obliterateQueue(queuePrefix: string): Promise<void> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const queue = new Queue(EXECUTION_QUEUE, { connection: { url }, prefix: queuePrefix });
  const redis = new Redis(url);
  try {
    await queue.obliterate({ force: true });
    await redis.del(lifecycleStream(queuePrefix), platformEventsStream(queuePrefix));
  } finally {
    await queue.close();
    redis.disconnect();
  }
  // And whatever else the run left under its prefix: each execution's event stream (kept a week after its end).
  await deleteRedisKeys(url, queuePrefix);
}

/**
 * The one directory test executors bind writable into their sandboxes (SANDBOX_TEST_WRITABLE_DIR): the
 * fixture skills count their attempts in marker files there, written as the sandbox user.
 */
export const SANDBOX_MARKER_ROOT = path.join(os.tmpdir(), 'exec-markers');

export async function markerDir(): Promise<string> {
  await mkdir(SANDBOX_MARKER_ROOT, { recursive: true });
  await chmod(SANDBOX_MARKER_ROOT, 0o1777);
  const dir = await mkdtemp(path.join(SANDBOX_MARKER_ROOT, 'run-'));
  await chmod(dir, 0o777);
  return dir;
}

/** How many times a test skill ran with this marker. */
export async function attemptsRecorded(marker: string): Promise<number> {
  try {
    return (await readFile(marker, 'utf8')).length;
  } catch {
    return 0;
  }
}

/** Force-promotes test skills (most have no examples) so they can be executed. */
export async function activate(baseUrl: string, names: string[]): Promise<void> {
  for (const name of names) {
    const response = await call(baseUrl, 'POST', `/v1/admin/skills/${name}/versions/1.0.0/promote`, {
      token: ADMIN_TOKEN,
      body: { force: true, reason: 'test-only skill' },
    });
    if (response.status !== 200) throw new Error(`could not activate ${name}: ${JSON.stringify(response.body)}`);
  }
}

/** Polls an execution until it is terminal. */
export async function waitForTerminal(baseUrl: string, id: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await call(baseUrl, 'GET', `/v1/executions/${id}`);
    if (['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(body.status)) return body;
    if (Date.now() > deadline) throw new Error(`execution ${id} still ${body.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Reads a whole SSE stream and returns its events in order. */
export async function readSse(
  baseUrl: string,
  id: string,
  headers: Record<string, string> = {},
): Promise<{ id: string; type: string; data: any }[]> {
  const response = await fetch(`${baseUrl}/v1/executions/${id}/events`, { headers });
  if (response.status !== 200) throw new Error(`SSE answered ${response.status}`);
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const fields = Object.fromEntries(
        block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
      );
      return { id: fields.id, type: fields.event, data: JSON.parse(fields.data) };
    });
}

/** Waits until `predicate` holds (polling), for conditions observed through files or the API. */
export async function eventually(predicate: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
