// Hand-written protobuf wire bytes, for what a generated client never sends: invalid UTF-8 in
// string fields, out-of-range enum varints, wrong wire types, truncation, 10,000-deep Structs.

export function varint(value) {
  let n = BigInt.asUintN(64, BigInt(value));
  const bytes = [];
  do {
    let byte = Number(n & 0x7fn);
    n >>= 7n;
    if (n) byte |= 0x80;
    bytes.push(byte);
  } while (n);
  return Buffer.from(bytes);
}

const tag = (field, wireType) => varint((field << 3) | wireType);
export const varintField = (field, value) => Buffer.concat([tag(field, 0), varint(value)]);
export const bytesField = (field, bytes) => Buffer.concat([tag(field, 2), varint(bytes.length), bytes]);

/**
 * A google.protobuf.Struct `{ "a": [[[ … null … ]]] }` nested `depth` lists deep, written back to
 * front into one buffer (each level's length prefix needs the size of everything inside it).
 */
export function deepStructBytes(depth) {
  const buffer = Buffer.alloc(depth * 16 + 64);
  let start = buffer.length;
  const prepend = (bytes) => {
    start -= bytes.length;
    bytes.copy(buffer, start);
  };
  prepend(Buffer.from([0x08, 0x00])); // Value { null_value: NULL_VALUE }
  const wrap = (field) => {
    const length = buffer.length - start;
    prepend(varint(length));
    prepend(tag(field, 2));
  };
  for (let i = 0; i < depth; i++) {
    wrap(1); // ListValue.values
    wrap(6); // Value.list_value
  }
  wrap(2); // map entry value
  prepend(Buffer.concat([tag(1, 2), varint(1), Buffer.from('a')])); // map entry key
  wrap(1); // Struct.fields
  return Buffer.from(buffer.subarray(start));
}

/** Mutations of a valid encoding; `undecodable` ones are not protobuf at all. */
export const WIRE_MUTATIONS = {
  unknownFields: (bytes) => Buffer.concat([bytes, varintField(99, 7), bytesField(1000, Buffer.from('junk')), varintField(536870911, 1)]),
  truncated: (bytes) => bytes.subarray(0, Math.max(1, bytes.length - 1)),
  wrongWireType: (bytes) => Buffer.concat([bytes, tag(1, 5), Buffer.from([1, 2])]),
  hugeLength: (bytes) => Buffer.concat([bytes, tag(1, 2), varint(2 ** 31), Buffer.from('x')]),
  groupWireType: (bytes) => Buffer.concat([bytes, tag(1, 3)]),
  junk: () => Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
};
export const UNDECODABLE = new Set(['truncated', 'wrongWireType', 'hugeLength', 'groupWireType', 'junk']);
