// Hostile values shared by the REST, gRPC and MCP case generators (fast-check arbitraries).
// Big values (100 KB strings, 10,000-deep nesting) are built by repetition or as text, never
// recursively, so generating them costs neither stack nor time.
import fc from 'fast-check';

export const LONG = 100_000;
export const DEEP = 10_000;

/** `[[[…]]]` 10,000 levels deep, as JSON text (JSON.stringify of such a value would recurse). */
export const deepArrayText = (depth = DEEP) => '['.repeat(depth) + ']'.repeat(depth);
export const deepObjectText = (depth = DEEP) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** A JS value nested `depth` levels, built bottom-up in a loop (for gRPC Structs and MCP params). */
export function deepValue(depth) {
  let value = null;
  for (let i = 0; i < depth; i++) value = i % 2 ? { a: value } : [value];
  return value;
}

const longString = fc.oneof(
  fc.constant('A'.repeat(LONG)),
  fc.constant('€'.repeat(LONG / 2)), // 150 KB of UTF-8
  fc.constant('\u0000'.repeat(LONG)),
  fc.constant('%FF'.repeat(LONG / 3)),
  fc.nat({ max: 1000 }).map((extra) => 'x'.repeat(LONG + extra)),
);

export const withNul = fc.string({ maxLength: 20 }).map((text) => `${text}\u0000${text}`);
export const loneSurrogate = fc.constantFrom('\ud800', 'a\udfffb', '\udc00\ud800', 'x\ud83d', '\ude00y');

const special = fc.constantFrom(
  '',
  ' ',
  '\t\n\r',
  '\ufeff',
  '\u202eevil',
  '\u200b',
  'é',
  'e\u0301',
  '🙂',
  '../../../../etc/passwd',
  '..%2f..%2f',
  '%00',
  '%',
  '%zz',
  "' OR 1=1 --",
  '"; DROP TABLE skills; --',
  '<script>alert(1)</script>',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-1',
  '1e309',
  '0x10',
  '9'.repeat(400),
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'Compare_Results',
  'compare_results ',
  ' compare_results',
  'COMPARE_RESULTS',
);

/**
 * A stream position as clients write one (`<ms>-<seq>`), each part up to past 64 bits: Redis refuses a position no
 * stream id can be, and one such answered 500 (issue 31's thirteenth session).
 */
export const streamPosition = fc
  .tuple(fc.bigInt({ min: 0n, max: 2n ** 66n }), fc.bigInt({ min: 0n, max: 2n ** 66n }))
  .map(([ms, seq]) => `${ms}-${seq}`);

/** A string a server must survive: NUL, lone surrogates, control and format characters, 100 KB+, injections. */
export const hostileString = fc.oneof(
  { arbitrary: fc.string({ maxLength: 30 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 30 }), weight: 2 },
  { arbitrary: withNul, weight: 3 },
  { arbitrary: loneSurrogate, weight: 2 },
  { arbitrary: special, weight: 4 },
  { arbitrary: fc.uuid(), weight: 1 },
  { arbitrary: longString, weight: 1 },
);

export const hugeNumber = fc.constantFrom(
  0,
  -0,
  -1,
  1.5,
  -2147483649,
  2 ** 31,
  2 ** 32,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  1e21,
  1e308,
  -1e308,
  5e-324,
);

/** Any wrong type for a field: null, booleans, odd numbers, strings, arrays, objects. */
export const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  hugeNumber,
  hostileString,
  fc.constant([]),
  fc.array(hostileString, { maxLength: 3 }),
  fc.constant({}),
  fc.dictionary(hostileString, fc.oneof(fc.constant(null), hostileString, hugeNumber), { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Numbers as they appear in JSON text but not in JS values: too big, too precise, NaN-like. */
export const numberText = fc.constantFrom(
  '1e999',
  '-1e999',
  '123456789012345678901234567890',
  '-0',
  '1E-400',
  '0.0000000000000000000000000001',
  '00012',
  '+1',
  '.5',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x1F',
);

const junkBase64 = fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes).toString('base64url'));
const cursorJson = (after) => Buffer.from(JSON.stringify(after), 'utf8').toString('base64url');

/**
 * Forged paging cursors: base64url of junk, of JSON of the wrong shape, and of the right shape
 * ({ v: 1, after }) naming keys that do not exist or cannot exist (non-UUID ids, NUL, bad dates).
 */
export const forgedCursor = fc.oneof(
  junkBase64,
  hostileString,
  fc.constantFrom('!!!', '====', 'a'.repeat(513), '-_-_'),
  fc.jsonValue({ maxDepth: 2 }).map(cursorJson),
  fc.record({ v: fc.oneof(fc.constant(1), wrongType), after: wrongType }).map(cursorJson),
  hostileString.map((after) => cursorJson({ v: 1, after })),
  fc
    .tuple(fc.constantFrom('2024-01-01T00:00:00.000Z', 'not a date', '', '9999-99-99', '275760-09-13T00:00:00.001Z'), hostileString)
    .map(([at, id]) => cursorJson({ v: 1, after: `${at}|${id}` })),
  fc.uuid().map((id) => cursorJson({ v: 1, after: `2024-01-01T00:00:00.000Z|${id}|extra` })),
  // The shape of a real executions cursor with an id that is no UUID: it gets past the format checks.
  {
    arbitrary: fc
      .constantFrom('not-a-uuid', '1', "x' OR '1'='1", '00000000-0000-0000-0000-00000000000g', 'a\u0000b')
      .map((id) => cursorJson({ v: 1, after: `2024-01-01T00:00:00.000Z|${id}` })),
    weight: 3,
  },
);

/** Text that is not valid UTF-8: stray continuation bytes, overlong NUL, CESU surrogates, truncated sequences. */
export const invalidUtf8 = fc.constantFrom(
  Buffer.from([0xff]),
  Buffer.from([0xfe, 0xff]),
  Buffer.from([0xc0, 0x80]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0x80, 0x80, 0x80]),
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
);

/** Bearer tokens: the admin and agent tokens the registry was started with, junk, and none. */
export function tokenArbitrary(tokens, adminWeight = 3) {
  return fc.oneof(
    { arbitrary: fc.constant(tokens.admin), weight: adminWeight },
    { arbitrary: fc.constant(tokens.agent), weight: 3 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: fc.constantFrom('junk-token', 'a'.repeat(5000), tokens.admin.toUpperCase(), `${tokens.admin} `), weight: 1 },
  );
}

/** Authorization header values beyond `Bearer <token>` (schemes, spacing, empty). */
export function authorizationVariants(tokens) {
  return fc.constantFrom(
    `bearer ${tokens.admin}`,
    `Bearer  ${tokens.agent}`,
    `Basic ${Buffer.from('admin:admin').toString('base64')}`,
    'Bearer',
    'Bearer ',
    '',
    `Bearer ${tokens.admin}, Bearer ${tokens.agent}`,
    `Token ${tokens.admin}`,
  );
}

/** Percent-encodes a string for a URL path or query, then optionally breaks the encoding. */
export function encodeSegment(value) {
  // encodeURIComponent throws on lone surrogates; send those as their WTF-8 bytes (ED A0..BF 80..BF),
  // which are invalid UTF-8 on the wire (the hostile form, rather than U+FFFD).
  const hex = (byte) => `%${byte.toString(16).toUpperCase()}`;
  return Array.from(value, (ch) => {
    const code = ch.charCodeAt(0);
    if (ch.length > 1 || code < 0xd800 || code > 0xdfff) return encodeURIComponent(ch);
    return hex(0xed) + hex(0xa0 | ((code >> 6) & 0x1f)) + hex(0x80 | (code & 0x3f));
  }).join('');
}

export const badPercent = fc.constantFrom('%FF', '%C0%80', '%ED%A0%80', '%', '%Z1', '%%', '%00', '%E2%82', 'a%2Fb', '%2e%2e', '%u0041');
