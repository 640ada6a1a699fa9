import { CursorInvalid, decodeCursor, encodeCursor } from './cursor.js';

describe('page cursors', () => {
  it('round-trips the sort key, including unicode and quotes', () => {
    for (const key of ['validate_pinmap', 'a"b', 'ünïcode', '']) expect(decodeCursor(encodeCursor(key))).toBe(key);
  });

  it('is opaque url-safe text', () => {
    expect(encodeCursor('validate_pinmap')).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['empty', ''],
    ['not base64url', '!!!'],
    ['not json', Buffer.from('hello').toString('base64url')],
    ['wrong shape', Buffer.from(JSON.stringify({ v: 2, after: 'x' })).toString('base64url')],
    ['absurdly long', 'A'.repeat(10_000)],
  ])('rejects a cursor that is %s', (_label, cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(CursorInvalid);
  });
});
