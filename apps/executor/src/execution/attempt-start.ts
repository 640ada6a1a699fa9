import type { ExecutionRecord } from '#executions/index.js';
import { writeAsIs, type RowWrite } from './early-row.js';

/**
 * Whether an attempt's start is in the database, and the one way to put it there; and whether its handler is done.
 *
 * Normally the start is written before the handler runs. A first attempt of a TypeScript handler in the
 * OS sandbox may instead run first and write its start lazily ("deferred"): the sandbox has no network,
 * no writable shared files and a scratch directory that is discarded, so until the handler uses the platform's
 * channel (a tool call, the twin, a log line) its run leaves nothing behind, and running it again after a
 * crash is the same as having run it once. The start becomes durable, at the latest:
 * - before the handler's first channel call is served (the runner awaits `ensure()` first);
 * - when the run has lasted `deferMs` (so a long run shows RUNNING and is heartbeated as usual);
 * - when the run ended in anything but success (retries and failures follow the usual path).
 * A run that succeeds before any of these writes start and end in one statement (finishUnstarted).
 *
 * If the start cannot be written (the execution was cancelled or decided meanwhile), `onRefused` runs (the
 * runner aborts the handler) and `ensure()` answers null. `rowWrite` is how this attempt's writes treat a row that
 * is not there yet (a job enqueued alongside its row's insert, see early-row.ts); the start's write goes through it
 * too.
 */
export class AttemptStart {
  private written: Promise<ExecutionRecord | null> | null;
  private record: ExecutionRecord | null;
  private timer: NodeJS.Timeout | null = null;
  private readonly startedAt = performance.now();
  private outcomeIn = false;

  private constructor(
    private readonly write: (() => Promise<ExecutionRecord | null>) | null,
    record: ExecutionRecord | null,
    private readonly onWritten: (record: ExecutionRecord) => void,
    private readonly onRefused: () => void,
    readonly rowWrite: RowWrite,
  ) {
    this.record = record;
    this.written = record ? Promise.resolve(record) : null;
  }

  /** An attempt whose start is already written (`record` is the row it returned). */
  static written(record: ExecutionRecord): AttemptStart {
    return new AttemptStart(
      null,
      record,
      () => undefined,
      () => undefined,
      writeAsIs,
    );
  }

  /** An attempt that runs before its start is written; `write` starts it (null when it cannot be started). */
  static deferred(options: {
    write: () => Promise<ExecutionRecord | null>;
    deferMs: number;
    onWritten: (record: ExecutionRecord) => void;
    onRefused: () => void;
    rowWrite?: RowWrite;
  }): AttemptStart {
    const rowWrite = options.rowWrite ?? writeAsIs;
    const start = new AttemptStart(() => rowWrite(options.write), null, options.onWritten, options.onRefused, rowWrite);
    start.timer = setTimeout(() => void start.ensure().catch(() => undefined), options.deferMs);
    start.timer.unref();
    return start;
  }

  /** True once the start is in the database (the attempt is then heartbeated and may be taken over). */
  get durable(): boolean {
    return this.record !== null;
  }

  /**
   * True once the handler's outcome is in and the attempt's end is being written (AttemptConclusion): nothing of the
   * attempt runs any more that a takeover would have to stop, and its end's write, guarded by the attempt, decides
   * whether it is still this worker's. A heartbeat that finds its row no longer running then is no takeover: the row
   * may have ended by that very write, committed before its answer reached this process.
   */
  get concluding(): boolean {
    return this.outcomeIn;
  }

  /** The handler's outcome is in (see `concluding`). */
  markConcluding(): void {
    this.outcomeIn = true;
  }

  /** True while nobody has asked for the start to be written: a success may still write start and end at once. */
  get untouched(): boolean {
    return this.written === null;
  }

  /** Milliseconds since the attempt began running here. */
  get elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  /** Writes the start if it is not written yet (once, however many callers ask); null when it cannot be. */
  ensure(): Promise<ExecutionRecord | null> {
    if (this.written) return this.written;
    this.stopTimer();
    const write = this.write as () => Promise<ExecutionRecord | null>;
    this.written = write().then(
      (record) => {
        if (record) {
          this.record = record;
          this.onWritten(record);
        } else this.onRefused();
        return record;
      },
      (error: unknown) => {
        // Not written: a later ensure() tries again (the database may be back by then).
        this.written = null;
        throw error;
      },
    );
    return this.written;
  }

  /** The attempt is over: no timer may write its start any more. */
  stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
