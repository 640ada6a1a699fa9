/** Opaque page cursors: base64url JSON of the last item's sort key, checked on the way back in. */
export class CursorInvalid extends Error {
  constructor(reason: string) {
    super(`cursor is invalid: ${reason}`);
    this.name = 'CursorInvalid';
  }
}

const MAX_CURSOR_LENGTH = 512;

export function encodeCursor(after: string): string {
  return Buffer.from(JSON.stringify({ v: 1, after }), 'utf8').toString('base64url');
}

/** The position a cursor of ours encodes; CursorInvalid for anything else, whatever its type. */
export function decodeCursor(cursor: unknown): string {
  if (typeof cursor !== 'string') throw new CursorInvalid('not a string');
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) throw new CursorInvalid('wrong length');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new CursorInvalid('not base64url');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new CursorInvalid('not a cursor issued by this API');
  }
  if (
    !decoded ||
    typeof decoded !== 'object' ||
    (decoded as { v?: unknown }).v !== 1 ||
    typeof (decoded as { after?: unknown }).after !== 'string'
  ) {
    throw new CursorInvalid('not a cursor issued by this API');
  }
  return (decoded as { after: string }).after;
}
