import secureJson from 'secure-json-parse';
import { childPointer } from './json-pointer.js';

/**
 * Strict reading of untrusted JSON, shared by every transport: valid UTF-8 only, nesting bounded
 * before any parser or validator recurses, no duplicated keys (JSON.parse would keep the last one
 * silently), and no text Postgres cannot store (NUL; lone surrogates, which drivers rewrite).
 *
 * Hand-written: JSON.parse has no depth limit or duplicate-key report, and the parsers that report
 * duplicates build their tree recursively, which is what a 10,000-level body must never reach.
 */

/** Deepest nesting of objects and arrays accepted in a request. */
export const MAX_JSON_DEPTH = 64;

/** Why a JSON text or value was refused; `pointer` (RFC 6901) locates it when known. */
export class JsonRejected extends Error {
  readonly pointer: string | null;
  constructor(
    readonly reason: string,
    pointer: string | null = null,
    readonly kind: 'malformed' | 'unstorable' = 'malformed',
  ) {
    const shown = pointer === null ? null : printable(clip(pointer, 200));
    super(shown === null ? reason : `${shown || '/'}: ${reason}`);
    this.name = 'JsonRejected';
    this.pointer = shown;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Parses a request body (or JSON text another part of a request carries, named by `subject`, e.g.
 * `metadata`): UTF-8, depth ≤ maxDepth, unique keys, storable text.
 */
export function parseStrictJson(body: Uint8Array | string, maxDepth = MAX_JSON_DEPTH, subject = 'body'): unknown {
  let text: string;
  if (typeof body === 'string') text = body;
  else {
    try {
      text = utf8.decode(body);
    } catch {
      throw new JsonRejected(`${subject} is not valid UTF-8`);
    }
  }
  checkStructure(text, maxDepth);
  let value: unknown;
  try {
    // secure-json-parse: JSON.parse that refuses `__proto__` / `constructor.prototype` keys (prototype poisoning).
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw new JsonRejected(`${subject} is not valid JSON: ${(error as Error).message}`);
  }
  assertStorableText(value);
  return value;
}

/**
 * One pass over the text without recursion: nesting depth and duplicate keys. Strings are skipped
 * whole, so brackets inside them do not count. Malformed text is left for JSON.parse to report.
 */
function checkStructure(text: string, maxDepth: number): void {
  const open: (Set<string> | null)[] = []; // one entry per open container: its keys, or null for an array
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      const keys = open[open.length - 1];
      if (expectKey && keys) {
        let key: string;
        try {
          key = JSON.parse(text.slice(start, i + 1)) as string;
        } catch {
          return;
        }
        if (keys.has(key)) throw new JsonRejected(`duplicate key '${clip(key)}'`);
        keys.add(key);
        expectKey = false;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (open.length >= maxDepth) throw new JsonRejected(`nested deeper than ${maxDepth} levels`);
      open.push(c === 0x7b ? new Set() : null);
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = open[open.length - 1] instanceof Set;
    }
  }
}

/** What makes a string unstorable, or null. */
export function unstorableTextReason(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (!text.isWellFormed()) return 'contains a lone UTF-16 surrogate (not valid Unicode text)';
  return null;
}

/** Throws JsonRejected (kind 'unstorable') naming the first string or key that cannot be stored. Iterative. */
export function assertStorableText(value: unknown, basePointer = ''): void {
  const pending: [unknown, string][] = [[value, basePointer]];
  while (pending.length > 0) {
    const [current, pointer] = pending.pop()!;
    if (typeof current === 'string') {
      const reason = unstorableTextReason(current);
      if (reason) throw new JsonRejected(reason, pointer, 'unstorable');
    } else if (ArrayBuffer.isView(current)) {
      continue; // bytes (a gRPC `bytes` field) are not text
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push([item, childPointer(pointer, index)]));
    } else if (current && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const child = childPointer(pointer, key);
        const reason = unstorableTextReason(key);
        if (reason) throw new JsonRejected(`key ${reason}`, child, 'unstorable');
        pending.push([item, child]);
      }
    }
  }
}

/** A value shortened for an error message: what a client sent is never echoed at length. */
export function clip(text: string, max = 64): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** Text safe to put in an error message or header: control characters escaped, surrogates repaired. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped here
  return text.toWellFormed().replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
