import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { runProgram } from './run-program.js';

/** The engineering program an adapter wraps. */
export interface ProgramSpec {
  /** Name used in messages ("ngspice is not installed"). */
  name: string;
  /** Executable name looked up in PATH, or an absolute path. */
  executable: string;
  /** Debian package that provides it (named in messages and /healthz). */
  debianPackage: string;
  /** Arguments that make it print its version and exit. */
  versionArgs: string[];
  /** Pull the version out of that output; null when it cannot be found. */
  parseVersion(output: string): string | null;
}

export interface ProgramStatus {
  name: string;
  debianPackage: string;
  found: boolean;
  path: string | null;
  version: string | null;
}

/** How long a "not found" answer is kept before PATH is searched again (so installing it later is noticed). */
const MISSING_RECHECK_MS = 5_000;

/** Finds the program and its version; a found program is remembered, a missing one is looked for again later. */
export class Program {
  private status: ProgramStatus | null = null;
  private checkedAt = 0;
  private probing: Promise<ProgramStatus> | null = null;

  constructor(readonly spec: ProgramSpec) {}

  /** "ngspice is not installed (Debian package ngspice)". */
  get missingMessage(): string {
    return `${this.spec.name} is not installed (Debian package '${this.spec.debianPackage}'); the tool cannot run on this adapter`;
  }

  async probe(): Promise<ProgramStatus> {
    if (this.status?.found) return this.status;
    if (this.status && Date.now() - this.checkedAt < MISSING_RECHECK_MS) return this.status;
    this.probing ??= this.locate().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  private async locate(): Promise<ProgramStatus> {
    const path = await findExecutable(this.spec.executable);
    let version: string | null = null;
    if (path) {
      const run = await runProgram({
        command: path,
        args: this.spec.versionArgs,
        cwd: tmpdir(),
        timeoutMs: 10_000,
        maxOutputBytes: 1 << 20,
      });
      version = this.spec.parseVersion(`${run.stdout}\n${run.stderr}`);
    }
    this.status = { name: this.spec.name, debianPackage: this.spec.debianPackage, found: path !== null, path, version };
    this.checkedAt = Date.now();
    return this.status;
  }
}

async function findExecutable(executable: string): Promise<string | null> {
  const candidates = isAbsolute(executable)
    ? [executable]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, executable));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* keep looking */
    }
  }
  return null;
}
