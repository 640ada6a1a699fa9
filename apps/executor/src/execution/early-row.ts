/**
 * A write of an execution whose job may have come before its row (ExecutionJob.early: the registry enqueues it
 * alongside the insert). `write` answers null when no row met its conditions: for such a job that may only mean the
 * row is not committed yet, so it is written again once `exists` sees the row, waiting up to `maxWaitMs` (pauses
 * doubling from 1 ms to 100 ms) for it. A row that is there and still refuses (cancelled, decided) costs one more
 * write, which answers null again. Null after `maxWaitMs` without a row: there is none (the insert failed).
 */
export async function writeOnceRowExists<T>(
  write: () => Promise<T | null>,
  exists: () => Promise<boolean>,
  maxWaitMs: number,
): Promise<T | null> {
  const first = await write();
  if (first !== null) return first;
  const deadline = performance.now() + maxWaitMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 100)) {
    if (await exists()) return write();
    const left = deadline - performance.now();
    if (left <= 0) return null;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
  }
}

/** How an attempt's writes treat a row that is not there: as a refusal (`writeAsIs`), or waiting for it (writeOnceRowExists). */
export type RowWrite = <T>(write: () => Promise<T | null>) => Promise<T | null>;

export const writeAsIs: RowWrite = (write) => write();
