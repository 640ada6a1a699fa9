// How a JSON body and the headers around it are mangled on the wire: content types, duplicated
// keys, numbers JS cannot hold, invalid UTF-8, 10,000-deep nesting, truncation, non-object bodies.
import fc from 'fast-check';
import { deepArrayText, deepObjectText, hostileString, invalidUtf8, numberText, streamPosition, wrongType } from './values.mjs';

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=UTF-16'];
const OTHER_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/problem+json',
  'application/vnd.api+json',
  'application/octet-stream',
  'application/json, text/plain',
  ';;;',
];
const MARK = 'ZZBADUTF8ZZ';

/** Header values must be latin-1 without control characters to leave the client at all. */
export function headerSafe(value) {
  const latin1 = Buffer.from(String(value), 'utf8').toString('latin1');
  const allowed = (ch) => ch === '\t' || (ch >= ' ' && ch !== '\x7f');
  return Array.from(latin1).filter(allowed).join('').slice(0, 20_000);
}

const withMarks = (body, bytes) => {
  const text = Buffer.from(JSON.stringify(body), 'utf8');
  const parts = text.toString('latin1').split(MARK);
  return Buffer.concat(parts.flatMap((part, i) => (i ? [bytes, Buffer.from(part, 'latin1')] : [Buffer.from(part, 'latin1')])));
};

function markStrings(value) {
  if (typeof value === 'string') return value + MARK;
  if (Array.isArray(value)) return value.map(markStrings);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markStrings(v)]));
  return value;
}

/**
 * Wire forms of a body object. `strict`: the object is an invalid request only as JSON, so every
 * form must stay a JSON object (no other content types, no null/array/primitive bodies).
 */
export function jsonBodyForms(object, { strict = false } = {}) {
  const text = JSON.stringify(object);
  const keys = Object.keys(object);
  const jsonType = fc.constantFrom(...JSON_TYPES);
  const anyType = strict ? jsonType : fc.oneof({ arbitrary: jsonType, weight: 3 }, fc.constantFrom(...OTHER_TYPES), fc.constant(undefined));
  const form = (body, type = 'application/json') => ({ body, headers: type === undefined ? {} : { 'content-type': type } });
  const insert = (entry) => (text === '{}' ? `{${entry}}` : `{${entry},${text.slice(1)}`);
  const forms = [
    { arbitrary: anyType.map((type) => form(text, type)), weight: 6 },
    // Every field's own value comes last, so duplicates before it never decide the outcome.
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...(keys.length ? keys : ['a'])), wrongType)
        .map(([key, value]) => form(insert(`${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`))),
      weight: 2,
    },
    { arbitrary: fc.constantFrom(deepArrayText(), deepObjectText()).map((deep) => form(insert(`"deep":${deep}`))), weight: 2 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...(keys.length ? keys : ['n'])), numberText)
        .map(([key, number]) => form(JSON.stringify({ ...object, [key]: MARK }).replace(`"${MARK}"`, number))),
      weight: 2,
    },
    { arbitrary: invalidUtf8.map((bytes) => form(withMarks({ [`k${MARK}`]: MARK, ...object }, bytes))), weight: 2 },
    { arbitrary: fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => form(text.slice(0, cut))), weight: 1 },
    {
      arbitrary: fc
        .constantFrom(
          `${text}xyz`,
          `\ufeff${text}`,
          `${text}${text}`,
          text.replace(/"/g, "'"),
          `/* c */${text}`,
          insert('"n":NaN'),
          insert('"s":"a\u0000b"'),
        )
        .map((body) => form(body)),
      weight: 1,
    },
    { arbitrary: fc.constant(form(`{"pad":"${'p'.repeat(1_200_000)}"}`)), weight: 1 },
  ];
  if (!strict) {
    forms.push(
      { arbitrary: invalidUtf8.map((bytes) => form(withMarks(markStrings(object), bytes))), weight: 2 },
      { arbitrary: fc.constantFrom(deepArrayText(), deepObjectText()).map((deep) => form(deep)), weight: 1 },
      { arbitrary: fc.constantFrom('null', '[]', '[{}]', '"text"', '0', 'true', '', '   ', '\u0000').map((body) => form(body)), weight: 2 },
    );
  }
  return fc.oneof(...forms);
}

/** Bodies for operations that take none (reads, discover, cancel): sometimes one is sent anyway. */
export const safeBodyForms = fc.oneof(
  { arbitrary: fc.constant({ body: undefined, headers: {} }), weight: 3 },
  {
    arbitrary: fc
      .oneof(
        fc.constantFrom(deepArrayText(), deepObjectText(), 'null', '{"a":1,"a":2}', '{'),
        wrongType.map((v) => JSON.stringify(v) ?? 'null'),
      )
      .map((body) => ({ body, headers: { 'content-type': 'application/json' }, withGet: true })),
    weight: 1,
  },
);

const hostVariants = fc.constantFrom(
  'evil.example',
  'localhost',
  '127.0.0.1:1',
  '[::1]:80',
  'a'.repeat(300),
  'exa mple',
  'xn--80ak6aa92e.com',
);
const originVariants = fc.constantFrom('http://evil.example', 'null', 'file://', 'http://127.0.0.1', 'not a url', 'http://[::1]:99999');

/** Declared header parameters with hostile values, plus Host/Origin/Accept variants. */
export function hostileHeaders(headerParams) {
  const declared = Object.fromEntries(
    headerParams.map((p) => {
      const name = p.name.toLowerCase();
      const value = name === 'last-event-id' ? fc.oneof(streamPosition, hostileString.map(headerSafe)) : hostileString.map(headerSafe);
      return [name, fc.option(value, { nil: undefined, freq: 2 })];
    }),
  );
  const rarely = (arbitrary, weight) => fc.oneof({ arbitrary: fc.constant(undefined), weight }, arbitrary);
  return fc
    .record({
      ...declared,
      host: rarely(hostVariants, 8),
      origin: rarely(originVariants, 6),
      accept: rarely(fc.constantFrom('text/html', '*/*', 'application/xml', ''), 6),
      'x-forwarded-for': rarely(fc.constantFrom('1.2.3.4', 'x'.repeat(8000), '::1, evil'), 10),
    })
    .map((headers) => Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)));
}
