/** Collects stdout up to a bound; `push` reports when the bound is passed so the run can be killed. */
export class BoundedOutput {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  overflowed = false;

  constructor(readonly limitBytes: number) {}

  /** Adds a chunk; false once the total passes the bound (the chunk is then dropped). */
  push(chunk: Buffer): boolean {
    if (this.overflowed) return false;
    if (this.size + chunk.length > this.limitBytes) {
      this.overflowed = true;
      this.chunks.length = 0;
      return false;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}

/** Keeps the last `limitBytes` of a stream (stderr): a long log keeps its end, where the error usually is. */
export class StreamTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(readonly limitBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Compact only when twice over, so a chatty stream is not copied on every chunk.
    if (this.size > 2 * this.limitBytes) this.compact();
  }

  text(): string {
    this.compact();
    const text = Buffer.concat(this.chunks, this.size).toString('utf8');
    // A cut through a multi-byte character decodes as U+FFFD at the start: drop it.
    return this.dropped ? text.replace(/^\uFFFD+/, '') : text;
  }

  private compact(): void {
    if (this.size <= this.limitBytes) return;
    const all = Buffer.concat(this.chunks, this.size);
    const kept = Buffer.from(all.subarray(all.length - this.limitBytes));
    this.chunks = [kept];
    this.size = kept.length;
    this.dropped = true;
  }
}
