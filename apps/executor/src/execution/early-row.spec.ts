import { describe, expect, it } from '@jest/globals';
import { writeOnceRowExists } from './early-row.js';

/** A row that turns up after `appearsAfter` existence checks; writes succeed once it is there, unless it refuses. */
function table(appearsAfter: number, refuses = false) {
  let checks = 0;
  let writes = 0;
  const present = () => checks >= appearsAfter;
  return {
    write: async () => {
      writes++;
      return present() && !refuses ? 'written' : null;
    },
    exists: async () => {
      checks++;
      return present();
    },
    counts: () => ({ checks, writes }),
  };
}

describe('writeOnceRowExists', () => {
  it('writes once when the row is there', async () => {
    const row = table(0);
    expect(await writeOnceRowExists(row.write, row.exists, 1000)).toBe('written');
    expect(row.counts()).toEqual({ checks: 0, writes: 1 });
  });

  it('waits for a row committed after the first write, then writes again', async () => {
    const row = table(4);
    expect(await writeOnceRowExists(row.write, row.exists, 5000)).toBe('written');
    expect(row.counts()).toEqual({ checks: 4, writes: 2 });
  });

  it('a row that is there and refuses (cancelled, decided) costs one more write, and stays refused', async () => {
    const row = table(0, true);
    expect(await writeOnceRowExists(row.write, row.exists, 5000)).toBeNull();
    expect(row.counts()).toEqual({ checks: 1, writes: 2 });
  });

  it('gives up after the wait when no row comes (the insert failed), without writing again', async () => {
    const row = table(Number.POSITIVE_INFINITY);
    const began = performance.now();
    expect(await writeOnceRowExists(row.write, row.exists, 150)).toBeNull();
    expect(performance.now() - began).toBeGreaterThanOrEqual(145);
    expect(row.counts().writes).toBe(1);
    // Pauses double up to 100 ms: a handful of checks, not one per millisecond.
    expect(row.counts().checks).toBeGreaterThan(3);
    expect(row.counts().checks).toBeLessThan(15);
  });

  it('with no wait allowed, checks once and answers', async () => {
    const row = table(Number.POSITIVE_INFINITY);
    expect(await writeOnceRowExists(row.write, row.exists, 0)).toBeNull();
    expect(row.counts()).toEqual({ checks: 1, writes: 1 });
  });
});
