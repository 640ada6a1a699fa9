import { Injectable, Logger } from '@nestjs/common';
import type { AttemptStart } from './attempt-start.js';

interface RunningAttempt {
  attempt: number;
  controller: AbortController;
  start: AttemptStart;
}

/**
 * The attempts this process runs, from their start until their outcome is written (also while that
 * write waits out a database outage), each with the controller that stops its handler. The heartbeat
 * renews those whose start is written; cancellations and takeovers stop them through here.
 */
@Injectable()
export class RunningAttempts {
  private readonly logger = new Logger(RunningAttempts.name);
  private readonly running = new Map<string, RunningAttempt>();

  /** Holds an attempt until `release` (a later attempt of the same execution replaces it). */
  hold(executionId: string, attempt: RunningAttempt): void {
    this.running.set(executionId, attempt);
  }

  /** Ends the hold, unless a later attempt of the execution holds it now. */
  release(executionId: string, controller: AbortController): void {
    if (this.running.get(executionId)?.controller === controller) this.running.delete(executionId);
  }

  /** A deferred start was written: the attempt number it got. */
  started(executionId: string, start: AttemptStart, attempt: number): void {
    const entry = this.running.get(executionId);
    if (entry?.start === start) entry.attempt = attempt;
  }

  /** Whether this process runs attempt `attempt` of the execution (then it is alive, however late its heartbeat). */
  holds(executionId: string, attempt: number): boolean {
    return this.running.get(executionId)?.attempt === attempt;
  }

  ids(): string[] {
    return [...this.running.keys()];
  }

  /** The attempts to heartbeat: those whose start is written (the others have no row to renew). */
  heartbeated(): { id: string; attempt: number }[] {
    return [...this.running].filter(([, { start }]) => start.durable).map(([id, { attempt }]) => ({ id, attempt }));
  }

  /** Aborts a running execution of this process; false when it does not run here. */
  cancel(executionId: string): boolean {
    const entry = this.running.get(executionId);
    if (!entry) return false;
    entry.controller.abort();
    return true;
  }

  /**
   * Stops attempts that are no longer this worker's (another worker took them over after missed
   * heartbeats). Their outcome is discarded: every write about them is guarded by the attempt. An attempt
   * whose handler is done is left to its conclusion (AttemptStart.concluding): there is nothing left to stop, the
   * guarded write of its end tells whether it is still this worker's, and its row may have stopped running because
   * that write just ended it.
   */
  abandon(executionIds: string[]): void {
    for (const id of executionIds) {
      const entry = this.running.get(id);
      if (!entry || entry.start.concluding) continue;
      this.logger.warn(`attempt ${entry.attempt} of ${id} was taken over by another worker; stopping it`);
      entry.controller.abort();
    }
  }
}
