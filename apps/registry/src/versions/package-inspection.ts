import { accessSync, constants, lstatSync, statSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { PackageInspector, type InspectionTrust } from '#handler-sandbox/index.js';
import { privacyProblem } from '#script-sandbox/index.js';
import type { CodeInspector } from '#skill-loader/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

const MIB = 1024 * 1024;

/**
 * Where the registry evaluates package code to check a package (the JSON Schemas of schema.ts, the handler
 * class): sandbox processes (PackageInspector), never the registry's own process, which holds the platform's
 * tokens and database. HANDLER_SANDBOX=none, the operator's opt-out, keeps them plain child processes.
 */
@Injectable()
export class PackageInspection implements OnApplicationShutdown {
  private readonly logger = new Logger(PackageInspection.name);
  private readonly inspector: PackageInspector;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (config.HANDLER_SANDBOX === 'none') {
      this.logger.warn(
        'HANDLER_SANDBOX=none: package code checked at registration runs in plain child processes, without bubblewrap (operator opt-out)',
      );
    }
    this.inspector = new PackageInspector({
      isolation: config.HANDLER_SANDBOX,
      limits: { memoryMb: 256, addressSpaceMb: 2048, maxProcesses: 32, maxOpenFiles: 256, maxFileMb: 16, cpuSeconds: 600 },
      bounds: { maxFrameBytes: 8 * MIB, maxOutputBytes: MIB, maxMessagesPerSecond: 100, maxPendingCalls: 1 },
      timeoutMs: config.PACKAGE_INSPECTION_TIMEOUT_MS,
      maxShared: config.PACKAGE_INSPECTION_PROCESSES,
      // A fresh process costs ~0.4 s of CPU (Node, the runtime, the first packages' compiles) and holds ~15 KB more per
      // package inspected: 1,000 new packages took 6 processes and 6.0–6.2 s of their CPU with 200, 2 and 4.4–4.6 s with this.
      inspectionsPerProcess: 1000,
      idleMs: 30_000,
      copyRoot: config.PACKAGE_INSPECTION_DIR ?? memoryCopyRoot(),
    });
  }

  /** A fresh directory to copy one package into before it is inspected (see PackageInspector.copyDir). */
  copyDir(trust: InspectionTrust): Promise<string> {
    return this.inspector.copyDir(trust);
  }

  inspectorFor(trust: InspectionTrust): CodeInspector {
    return this.inspector.inspectorFor(trust);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.inspector.close();
  }
}

const SHARED_MEMORY = '/dev/shm';
const MIN_MEMORY_COPY_BYTES = 1024 * MIB;

/**
 * `<sharedMemory>/skill-registry-<uid>` when `sharedMemory` (/dev/shm: a memory file system on Linux) is a writable
 * directory with at least `minFreeBytes` free (1 GiB; a container's is often 64 MB, too small for a few packages of
 * up to PACKAGE_MAX_BYTES at once), else undefined: the inspector's default, under the sandbox root. A start-up
 * scan makes and removes a copy per new package, and on the disk each directory made or removed waited on the
 * file system's journal behind Postgres's commits (issue 31: the copy's share of a 1,000-package scan ~3.4 → ~0.5 s).
 */
export function memoryCopyRoot(sharedMemory = SHARED_MEMORY, minFreeBytes = MIN_MEMORY_COPY_BYTES): string | undefined {
  try {
    accessSync(sharedMemory, constants.W_OK);
    if (!statSync(sharedMemory).isDirectory()) return undefined;
    const { bavail, bsize } = statfsSync(sharedMemory);
    const candidate = join(sharedMemory, `skill-registry-${process.getuid?.() ?? 'user'}`);
    return bavail * bsize >= minFreeBytes && !takenByOthers(candidate) ? candidate : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `dir` exists and is not this process's own private directory (a link, another user's, writable by others):
 * anyone may make a directory in /dev/shm, and one made first under this name must not hold what the inspection loads
 * (the inspector would refuse it, and every package would go unchecked), so the sandbox root is used instead.
 */
function takenByOthers(dir: string): boolean {
  const info = lstatSync(dir, { throwIfNoEntry: false });
  if (!info) return false;
  return !info.isDirectory() || privacyProblem(info, true) !== null;
}
