import type { Duplex } from 'node:stream';

/**
 * Length-prefixed JSON frames over a byte stream: a 4-byte big-endian length, then that many bytes of
 * UTF-8 JSON. Used on both ends of the pipe between the executor and a sandbox process. The reading
 * end never buffers more than one frame's announced length, and refuses a frame over `maxFrameBytes`
 * before reading it, so a hostile process cannot make the executor hold more than that.
 *
 * Bytes (Uint8Array) travel as `{ "$bytes": "<base64>" }` (see encodeFrameValue/decodeFrameValue).
 */
export class FrameChannel {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private expected: number | null = null;
  private failed = false;

  constructor(
    private readonly stream: Duplex,
    private readonly maxFrameBytes: number,
    private readonly onFrame: (value: unknown) => void,
    /** A frame over the bound or not JSON: the reader stops at once; the caller ends the peer. */
    private readonly onViolation: (reason: 'too_large' | 'malformed', detail: string) => void,
  ) {
    stream.on('data', (chunk: Buffer) => this.take(chunk));
  }

  /** Sends one value; false when the stream is gone. */
  send(value: unknown): boolean {
    if (this.stream.destroyed || !this.stream.writable) return false;
    const body = Buffer.from(JSON.stringify(value, encodeFrameValue), 'utf8');
    const header = Buffer.allocUnsafe(4);
    header.writeUInt32BE(body.length, 0);
    this.stream.write(Buffer.concat([header, body]));
    return true;
  }

  private take(chunk: Buffer): void {
    if (this.failed) return;
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    for (;;) {
      if (this.expected === null) {
        if (this.bufferedBytes < 4) return;
        const length = this.peek(4).readUInt32BE(0);
        if (length > this.maxFrameBytes) return this.fail('too_large', `a message of ${length} bytes (the limit is ${this.maxFrameBytes})`);
        this.consume(4);
        this.expected = length;
      }
      if (this.bufferedBytes < this.expected) return;
      const body = this.consume(this.expected);
      this.expected = null;
      let value: unknown;
      try {
        value = JSON.parse(body.toString('utf8'), decodeFrameValue);
      } catch (error) {
        return this.fail('malformed', `a message that is not JSON (${(error as Error).message})`);
      }
      this.onFrame(value);
      if (this.failed) return;
    }
  }

  private fail(reason: 'too_large' | 'malformed', detail: string): void {
    this.failed = true;
    this.buffered = [];
    this.bufferedBytes = 0;
    this.onViolation(reason, detail);
  }

  private peek(bytes: number): Buffer {
    if ((this.buffered[0]?.length ?? 0) < bytes) this.buffered = [Buffer.concat(this.buffered)];
    return this.buffered[0] as Buffer;
  }

  private consume(bytes: number): Buffer {
    const all = this.buffered.length === 1 ? (this.buffered[0] as Buffer) : Buffer.concat(this.buffered);
    const taken = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.bufferedBytes = rest.length;
    return taken;
  }
}

/** JSON.stringify replacer: bytes as `{ $bytes: base64 }` (Buffers arrive here already as `{type:'Buffer'}` objects). */
function encodeFrameValue(this: unknown, key: string, value: unknown): unknown {
  const raw = (this as Record<string, unknown>)[key];
  if (raw instanceof Uint8Array) return { $bytes: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') };
  return value;
}

/** JSON.parse reviver: `{ $bytes: base64 }` (exactly that one key) back to a Uint8Array. */
function decodeFrameValue(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const encoded = (value as { $bytes?: unknown }).$bytes;
    if (keys.length === 1 && typeof encoded === 'string') return new Uint8Array(Buffer.from(encoded, 'base64'));
  }
  return value;
}
