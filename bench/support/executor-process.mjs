// Starts the built executor as a child process and waits until it reports ready.
import { spawn } from 'node:child_process';
import { benchNodeArgs, freePort, REPO_ROOT } from './registry-process.mjs';
import { serviceEntry } from '../../scripts/service-entries.mjs';

/**
 * Options (all optional): `port` (default: a free one), `log` (a writable stream that also gets the
 * process's stdout, and its stderr instead of this terminal), `timeoutMs` (give up and kill it when
 * it is not ready in time; default: wait as long as it runs).
 */
export async function startExecutorProcess(env, options = {}) {
  const port = options.port ?? (await freePort());
  const nodeArgs = benchNodeArgs('executor');
  const child = spawn(process.execPath, [...nodeArgs, serviceEntry('executor')], {
    cwd: REPO_ROOT,
    env: { ...process.env, EXECUTOR_PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', options.log ? 'pipe' : 'inherit'],
  });
  let output = '';
  let ready = false;
  // Only the start-up output is kept; after that it goes to the log (if any) and is not accumulated.
  child.stdout.on('data', (chunk) => {
    if (!ready) output += chunk;
  });
  if (options.log) {
    child.stdout.pipe(options.log, { end: false });
    child.stderr.pipe(options.log, { end: false });
  }
  const deadline = performance.now() + (options.timeoutMs ?? Infinity);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`executor exited during start-up: ${output}`);
    if (output.includes('skill executor ready')) {
      ready = true;
      return { child, port };
    }
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`executor not ready within ${options.timeoutMs} ms: ${output}`);
    }
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
