/** How a GroupCommit gathers requests into flushes. */
export interface GroupCommitOptions<Request> {
  /** Most requests one flush carries; a full batch is flushed at once. */
  maxBatch: number;
  /**
   * Longest a request waits for a flush to take it while other flushes are in flight. With none in
   * flight, the requests of the current turn of the event loop are flushed at its end.
   */
  windowMs: number;
  /** Requests with equal keys never share a flush (a later one goes in a later flush); null: no key. */
  keyOf?: (request: Request) => string | null;
  /**
   * For a failed flush of several requests: true when the error may come from one request's data
   * (then each is written again on its own, so one bad row fails only its caller); false when it
   * concerns the whole flush (the connection, the database), which then fails every caller.
   */
  isolate?: (error: unknown) => boolean;
}

interface Entry<Request, Result> {
  request: Request;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: concurrent callers' writes go to the database together, one statement per flush
 * (`write` gets the requests of a flush and returns one result per request, in order). A caller's
 * promise settles only once that statement has returned, that is, once its row is committed (or
 * its flush failed); nothing is acknowledged earlier. Flushes run when a batch fills, when nothing
 * else is in flight (at the end of the current turn of the event loop), and otherwise at most
 * `windowMs` after the oldest waiting request arrived; several flushes may be in flight at once.
 */
export class GroupCommit<Request, Result> {
  private pending: Entry<Request, Result>[] = [];
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;

  constructor(
    private readonly write: (requests: Request[]) => Promise<Result[]>,
    private readonly options: GroupCommitOptions<Request>,
  ) {
    if (options.maxBatch < 1) throw new Error('maxBatch must be at least 1');
  }

  /** Requests waiting for a flush (for tests and metrics). */
  get waiting(): number {
    return this.pending.length;
  }

  /** Flushes in flight. */
  get flushing(): number {
    return this.inFlight;
  }

  /** Resolves with this request's own result once its flush has committed; rejects if its flush failed. */
  submit(request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.pending.push({ request, resolve, reject });
      this.arrange();
    });
  }

  /** Decides when the waiting requests go: now (full batch), at the end of this turn (idle), or within the window. */
  private arrange(): void {
    while (this.pending.length >= this.options.maxBatch) this.flush();
    if (this.pending.length === 0) return this.clearTimers();
    if (this.inFlight === 0) {
      this.immediate ??= setImmediate(() => {
        this.immediate = null;
        this.flush();
      });
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.flush();
    }, this.options.windowMs);
  }

  private clearTimers(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
  }

  private flush(): void {
    const batch = this.take();
    this.clearTimers();
    if (batch.length > 0) {
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.arrange();
      });
    }
    if (this.pending.length > 0) this.arrange();
  }

  /** The oldest waiting requests, up to maxBatch, no two with the same key; the others keep their order. */
  private take(): Entry<Request, Result>[] {
    const { keyOf, maxBatch } = this.options;
    if (!keyOf) return this.pending.splice(0, maxBatch);
    const keys = new Set<string>();
    const batch: Entry<Request, Result>[] = [];
    const rest: Entry<Request, Result>[] = [];
    for (const entry of this.pending) {
      const key = keyOf(entry.request);
      if (batch.length < maxBatch && (key === null || !keys.has(key))) {
        if (key !== null) keys.add(key);
        batch.push(entry);
      } else rest.push(entry);
    }
    this.pending = rest;
    return batch;
  }

  private async run(batch: Entry<Request, Result>[]): Promise<void> {
    let results: Result[];
    try {
      results = await this.write(batch.map((entry) => entry.request));
      if (results.length !== batch.length) throw new Error(`a flush of ${batch.length} returned ${results.length} results`);
    } catch (error) {
      if (batch.length > 1 && this.options.isolate?.(error)) {
        // One request's data may be at fault: write each alone, so only its own caller fails.
        await Promise.all(batch.map((entry) => this.run([entry])));
        return;
      }
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, index) => entry.resolve(results[index] as Result));
  }
}
