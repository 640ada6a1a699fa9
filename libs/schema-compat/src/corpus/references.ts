import type { CorpusEntry } from './corpus-entry.js';

const tree = (value: unknown) => ({
  type: 'object',
  properties: { value, children: { type: 'array', items: { $ref: '#' } } },
  required: ['value'],
});

const linkedList = (next: unknown) => ({
  $ref: '#/$defs/node',
  $defs: { node: { type: 'object', properties: { value: { type: 'integer' }, next } } },
});

const mutual = (n: unknown) => ({
  $ref: '#/$defs/a',
  $defs: {
    a: { type: 'object', properties: { b: { $ref: '#/$defs/b' } } },
    b: { type: 'object', properties: { a: { $ref: '#/$defs/a' }, n } },
  },
});

const json = {
  $ref: '#/$defs/json',
  $defs: {
    json: {
      anyOf: [
        { type: ['string', 'number', 'boolean', 'null'] },
        { type: 'array', items: { $ref: '#/$defs/json' } },
        { type: 'object', additionalProperties: { $ref: '#/$defs/json' } },
      ],
    },
  },
};

/** $ref and $defs/definitions, anchors, recursive and mutually recursive schemas, unresolvable references. */
export const REFERENCE_PAIRS: CorpusEntry[] = [
  {
    keyword: '$ref',
    name: 'reference inlined',
    old: { $ref: '#/$defs/a', $defs: { a: { type: 'string' } } },
    new: { type: 'string' },
    backward: true,
    forward: true,
  },
  {
    keyword: '$ref',
    name: 'definitions target narrower',
    old: { type: 'string' },
    new: { $ref: '#/definitions/a', definitions: { a: { type: 'string', maxLength: 3 } } },
    backward: false,
    forward: true,
    codes: ['MAX_LENGTH_DECREASED'],
  },
  {
    keyword: '$ref',
    name: 'recursive tree value widened',
    old: tree({ type: 'integer' }),
    new: tree({ type: 'number' }),
    backward: true,
    forward: false,
    codes: ['TYPE_WIDENED'],
  },
  {
    keyword: '$ref',
    name: 'recursive tree unchanged but reformatted',
    old: tree({ type: 'integer' }),
    new: { ...tree({ type: 'integer' }), title: 'Tree' },
    backward: true,
    forward: true,
  },
  {
    keyword: '$ref',
    name: 'recursive definition renamed',
    old: { $ref: '#/$defs/node', $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } } },
    new: { $ref: '#/$defs/tree', $defs: { tree: { type: 'object', properties: { next: { $ref: '#/$defs/tree' } } } } },
    backward: true,
    forward: true,
  },
  {
    keyword: '$ref',
    name: 'linked list next no longer nullable',
    old: linkedList({ anyOf: [{ $ref: '#/$defs/node' }, { type: 'null' }] }),
    new: linkedList({ $ref: '#/$defs/node' }),
    backward: false,
    forward: true,
    codes: ['TYPE_NARROWED'],
  },
  {
    keyword: '$ref',
    name: 'linked list next made nullable',
    old: linkedList({ $ref: '#/$defs/node' }),
    new: linkedList({ anyOf: [{ $ref: '#/$defs/node' }, { type: 'null' }] }),
    backward: true,
    forward: false,
  },
  {
    keyword: '$ref',
    name: 'reference with a sibling keyword',
    old: { $ref: '#/$defs/s', maxLength: 5, $defs: { s: { type: 'string' } } },
    new: { type: 'string', maxLength: 5 },
    backward: true,
    forward: true,
  },
  {
    keyword: '$ref',
    name: 'reference with a sibling keyword narrowed',
    old: { type: 'string', maxLength: 5 },
    new: { $ref: '#/$defs/s', maxLength: 4, $defs: { s: { type: 'string' } } },
    backward: false,
    forward: true,
    codes: ['MAX_LENGTH_DECREASED'],
  },
  {
    keyword: '$ref',
    name: 'remote reference cannot be resolved',
    old: { type: 'string' },
    new: { $ref: 'https://example.com/s.json' },
    backward: false,
    forward: false,
    codes: ['REF_UNRESOLVABLE'],
  },
  {
    keyword: '$ref',
    name: 'identical unresolvable references',
    old: { $ref: 'https://example.com/s.json' },
    new: { $ref: 'https://example.com/s.json' },
    backward: true,
    forward: true,
  },
  {
    keyword: '$ref',
    name: 'missing local definition',
    old: { type: 'string' },
    new: { $ref: '#/$defs/missing' },
    backward: false,
    forward: false,
    codes: ['REF_UNRESOLVABLE'],
  },
  {
    keyword: '$ref',
    name: 'reference by anchor',
    old: { $ref: '#s', $defs: { s: { $anchor: 's', type: 'string' } } },
    new: { type: 'string' },
    backward: true,
    forward: true,
  },
  {
    keyword: '$ref',
    name: 'mutually recursive definitions widened',
    old: mutual({ type: 'integer' }),
    new: mutual({ type: 'number' }),
    backward: true,
    forward: false,
  },
  {
    keyword: '$ref',
    name: 'mutually recursive definitions narrowed',
    old: mutual({ type: 'number' }),
    new: mutual({ type: 'integer' }),
    backward: false,
    forward: true,
    codes: ['TYPE_NARROWED'],
  },
  {
    keyword: '$ref',
    name: 'referenced property definition narrowed',
    old: { type: 'object', properties: { p: { $ref: '#/$defs/x' } }, $defs: { x: { type: 'string' } } },
    new: { type: 'object', properties: { p: { $ref: '#/$defs/x' } }, $defs: { x: { type: 'string', minLength: 1 } } },
    backward: false,
    forward: true,
    codes: ['MIN_LENGTH_INCREASED'],
  },
  { keyword: '$ref', name: 'any JSON value equals true', old: json, new: true, backward: true, forward: true },
  {
    keyword: '$ref',
    name: 'any JSON value minus null',
    old: json,
    new: {
      ...json,
      $defs: { json: { ...json.$defs.json, anyOf: [{ type: ['string', 'number', 'boolean'] }, ...json.$defs.json.anyOf.slice(1)] } },
    },
    backward: false,
    forward: true,
  },
  {
    keyword: '$ref',
    name: 'reference to the root of a closed recursive object',
    old: { type: 'object', properties: { child: { $ref: '#' } }, additionalProperties: false },
    new: { type: 'object', properties: { child: { $ref: '#' }, name: { type: 'string' } }, additionalProperties: false },
    backward: true,
    forward: false,
  },
  {
    keyword: '$ref',
    name: 'unused definitions changed around an overlapping oneOf',
    old: { oneOf: [{}, { const: 'ba' }], $defs: { d: { type: 'string' } } },
    new: { oneOf: [{}, { const: 'ba' }], $defs: { d: { type: 'number' } } },
    backward: true,
    forward: true,
  },
  {
    keyword: '$ref',
    name: 'used definition changed under an identical oneOf',
    old: { oneOf: [{ $ref: '#/$defs/d' }, { const: 'ba' }], $defs: { d: { type: 'string' } } },
    new: { oneOf: [{ $ref: '#/$defs/d' }, { const: 'ba' }], $defs: { d: { type: 'string', description: 'renamed' } } },
    backward: true,
    forward: true,
  },
];
