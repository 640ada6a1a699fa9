import type { PackageDefinition } from '@grpc/proto-loader';

/** A message type as proto-loader describes it: its fields, and the types nested in it (map entries among them). */
interface MessageDescriptor {
  name?: string;
  field?: { number: number; type: string; typeName: string }[];
  nestedType?: MessageDescriptor[];
}

/** Per message type (full name, no leading dot): which of its field numbers hold a message, and of which type. */
export type MessageFields = Map<string, Map<number, string>>;

/**
 * The message fields of every message type of `definition`, nested types included, each field's type resolved to its
 * full name (proto-loader writes it as written in the .proto, relative to the field's message: `Value`, `Fields`).
 */
export function messageFieldsOf(definition: PackageDefinition): MessageFields {
  const descriptors = new Map<string, MessageDescriptor>();
  const collect = (name: string, type: MessageDescriptor) => {
    descriptors.set(name, type);
    for (const nested of type.nestedType ?? []) collect(`${name}.${nested.name}`, nested);
  };
  for (const [name, entry] of Object.entries(definition)) {
    if ('format' in entry && entry.format === 'Protocol Buffer 3 DescriptorProto') collect(name, entry.type as MessageDescriptor);
  }
  const types: MessageFields = new Map();
  for (const [name, type] of descriptors) {
    const fields = (type.field ?? []).filter((field) => field.type === 'TYPE_MESSAGE');
    types.set(name, new Map(fields.map((field) => [field.number, resolve(name, field.typeName, descriptors)])));
  }
  return types;
}

/** A type name as protobuf resolves it from inside message `scope`: the innermost enclosing scope that has it. */
function resolve(scope: string, typeName: string, known: Map<string, unknown>): string {
  if (typeName.startsWith('.')) return typeName.slice(1);
  for (let at = scope.length; at > 0; at = scope.lastIndexOf('.', at - 1)) {
    const candidate = `${scope.slice(0, at)}.${typeName}`;
    if (known.has(candidate)) return candidate;
  }
  return typeName;
}

/** The full name of a method's request type, from its path (`/package.Service/Method`) and its type's own name. */
export function requestTypeName(method: { path?: string; requestType?: { type?: { name?: string } } }): string | null {
  const service = /^\/(.+)\.[^./]+\//.exec(method.path ?? '')?.[1];
  const name = method.requestType?.type?.name;
  return service && name ? `${service}.${name}` : null;
}

/** Deeper than this, a message is refused (the decoded request's own depth check is tighter). */
const MAX_FRAMING_DEPTH = 256;

/**
 * The first fault in the protobuf framing of `bytes` as a message whose message fields are `fields`, or null: a tag,
 * varint or fixed-width value cut short, a length-delimited field longer than what is left of its message (checked
 * inside every nested message too, with `types` for their fields), a field numbered 0, or a wire type proto3 does
 * not use. protobufjs decodes some of these silently: a string whose length runs past the end of the buffer is cut to
 * what there is (a `name` field of 2^31 bytes holding 'x' decoded as the name 'x'), and it checks a nested message's
 * fields against the end of the buffer, not of their parent, so what they claim past it is not refused there either.
 * Hand-written: no library checks framing apart from decoding.
 */
export function framingFault(
  bytes: Uint8Array,
  fields: Map<number, string>,
  types: MessageFields,
  start = 0,
  end = bytes.length,
  depth = 0,
): string | null {
  if (depth > MAX_FRAMING_DEPTH) return 'nested too deeply';
  let at = start;
  const varint = (): number | null => {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (at >= end) return null;
      const byte = bytes[at++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    return null;
  };
  while (at < end) {
    const tag = varint();
    if (tag === null) return 'a field tag is cut short';
    const field = Math.floor(tag / 8);
    if (field === 0) return 'a field numbered 0';
    switch (tag % 8) {
      case 0:
        if (varint() === null) return 'a varint is cut short';
        break;
      case 1:
        at += 8;
        if (at > end) return 'a 64-bit value is cut short';
        break;
      case 5:
        at += 4;
        if (at > end) return 'a 32-bit value is cut short';
        break;
      case 2: {
        const length = varint();
        if (length === null || at + length > end) return `field ${field} is longer than what is left of its message`;
        const nested = fields.get(field);
        if (nested !== undefined) {
          const fault = framingFault(bytes, types.get(nested) ?? new Map(), types, at, at + length, depth + 1);
          if (fault) return fault;
        }
        at += length;
        break;
      }
      default:
        return `wire type ${tag % 8}, which proto3 does not use`;
    }
  }
  return null;
}
