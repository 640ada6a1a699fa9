// Starts the built executor as a child process and waits until it reports ready.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort, REPO_ROOT } from './registry-process.mjs';

export async function startExecutorProcess(env) {
  const port = await freePort();
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const child = spawn(process.execPath, [...nodeArgs, path.join(REPO_ROOT, 'dist/apps/executor/src/main.js')], {
    cwd: REPO_ROOT,
    env: { ...process.env, EXECUTOR_PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`executor exited during start-up: ${output}`);
    if (output.includes('skill executor ready')) return { child, port };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resident set size of a process in MB (Linux). */
export async function rssMb(pid) {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}
