import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ScriptOutcome } from './script-outcome.js';

/** A package directory for tests: `files` written with the modes the package cache uses (0755 dirs, 0644 files). */
export async function writePackage(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'script-package-'));
  await chmod(dir, 0o755);
  for (const [name, body] of Object.entries(files)) {
    const target = path.join(dir, name);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
    await writeFile(target, body, { mode: 0o644 });
  }
  return dir;
}

export async function removePackage(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** PIDs of host processes whose command line contains `marker` (other than this test process). */
export async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(marker)) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** A unique string for a test's processes to carry in their command line. */
export function uniqueMarker(prefix: string): string {
  // Digits only after the prefix: a marker given to /bin/sleep must stay a valid duration ('4242.' + digits),
  // or the sleep exits at once and a check that nothing is left passes without anything having been killed.
  return `${prefix}${process.pid}0${Math.floor(Math.random() * 1e9)}`;
}

/** The error of a failed outcome; fails the test with the outcome shown when it succeeded. */
export function errorOf(outcome: ScriptOutcome): Extract<ScriptOutcome, { ok: false }>['error'] {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

/** The output of a successful outcome; fails the test with the error shown otherwise. */
export function outputOf(outcome: ScriptOutcome): Record<string, unknown> {
  if (!outcome.ok) throw new Error(`expected success, got ${JSON.stringify(outcome.error)}`);
  return outcome.output;
}
