// gRPC cases derived from proto/skill_registry.proto (loaded with @grpc/proto-loader, as the
// registry and test/support/grpc.ts load it): every RPC of skillregistry.v1.SkillRegistry and
// skillregistry.v1.Twin, every request field by its proto type, as messages and as hand-mangled
// wire bytes.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protoLoader from '@grpc/proto-loader';
import fc from 'fast-check';
import {
  createBranchInvalidatorGrpc,
  deprecateInvalidatorGrpc,
  executeInvalidatorGrpc,
  promoteInvalidatorGrpc,
  struct,
} from './grpc-invalid.mjs';
import { forgedCursor, hostileString, invalidUtf8, streamPosition, tokenArbitrary, withNul, wrongType } from './values.mjs';
import { WIRE_MUTATIONS, bytesField, deepStructBytes, varintField } from './wire.mjs';

export const PROTO_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../proto/skill_registry.proto');
export const SERVICE = 'skillregistry.v1.SkillRegistry';
export const TWIN_SERVICE = 'skillregistry.v1.Twin';
export const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/** Every RPC of both services by method name (the names are distinct; each method carries its own path). */
export function loadService() {
  const definition = protoLoader.loadSync(PROTO_PATH, LOADER_OPTIONS);
  const service = { ...definition[SERVICE], ...definition[TWIN_SERVICE] };
  if (Object.keys(service).length !== Object.keys(definition[SERVICE]).length + Object.keys(definition[TWIN_SERVICE]).length) {
    throw new Error('an RPC name is in both services: the drill keys RPCs by name');
  }
  return { definition, service };
}

const timestamp = fc.oneof(
  fc.constantFrom(
    { seconds: '99999999999999', nanos: 0 },
    { seconds: '-99999999999999', nanos: 0 },
    { seconds: '9223372036854775807', nanos: 999999999 },
    { seconds: 0, nanos: -1 },
    { seconds: 1, nanos: 2000000000 },
    { seconds: 0, nanos: 0 },
  ),
  fc.constant({ seconds: String(Math.floor(Date.now() / 1000) + 86_400), nanos: 0 }),
);

function scalar(field, targets, enums) {
  switch (field.type) {
    case 'TYPE_STRING':
      if (field.name === 'name' || field.name === 'skill')
        return fc.oneof(
          fc.constantFrom(...targets.active.map((s) => s.name)),
          fc.constantFrom(...targets.registered.map((s) => s.name)),
          hostileString,
        );
      if (field.name === 'version') return fc.oneof(fc.constantFrom('0.1.0', '1.0.0', '9.9.9'), hostileString);
      if (field.name === 'cursor') return forgedCursor;
      if (field.name === 'last_event_id') return fc.oneof(streamPosition, hostileString);
      if (field.name === 'id') return fc.oneof(...(targets.execution ? [fc.constant(targets.execution)] : []), fc.uuid(), hostileString);
      // Twin requests: real branches, kinds and media types too, so cases get past the first check.
      if (field.name === 'branch' || field.name === 'from') return fc.oneof(fc.constantFrom('main', 'Main', 'main/..', ''), hostileString);
      if (field.name === 'kind') return fc.oneof(fc.constantFrom('mesh', 'report', 'Mesh', 'a'.repeat(65)), hostileString);
      if (field.name === 'media_type')
        return fc.oneof(
          fc.constantFrom('text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'text/plain; charset="x'),
          hostileString,
        );
      return fc.oneof(hostileString, withNul);
    case 'TYPE_BYTES':
      return fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.constant(new Uint8Array(0))).map((bytes) => Buffer.from(bytes));
    case 'TYPE_UINT32':
      return fc.constantFrom(0, 1, 3, 4, 101, 4294967295, -1, 2 ** 40);
    case 'TYPE_DOUBLE':
      return fc.constantFrom(0, -1, 0.5, 61, NaN, Infinity, -Infinity, 1e308, -0);
    case 'TYPE_BOOL':
      return fc.boolean();
    case 'TYPE_ENUM': {
      const values = enums[field.typeName] ?? [];
      return fc.oneof(fc.constantFrom(...values.map((v) => v.name)), fc.constantFrom(6, 7, 99, -1, 2147483647, -2147483648));
    }
    case 'TYPE_MESSAGE':
      if (field.typeName === 'google.protobuf.Timestamp') return timestamp;
      if (field.typeName === 'google.protobuf.Struct') return fc.dictionary(hostileString, wrongType, { maxKeys: 4 }).map(struct);
      return fc.constant(null);
    default:
      return fc.constant(undefined);
  }
}

function messageArbitrary(fields, targets, enums) {
  const model = Object.fromEntries(
    fields.map((field) => {
      const one = scalar(field, targets, enums);
      const value = field.label === 'LABEL_REPEATED' ? fc.array(one, { maxLength: 25 }) : one;
      return [field.name, fc.option(value, { nil: undefined, freq: 3 })];
    }),
  );
  return fc.record(model).map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)));
}

/** RPCs whose valid requests change state, and the targets where they could. */
function liveRules(targets) {
  return {
    PromoteSkill: {
      live: (r) => targets.registered.some((s) => s.name === r.name && s.version === r.version),
      invalidator: promoteInvalidatorGrpc,
    },
    DeprecateSkill: { live: (r) => targets.active.some((s) => s.name === r.name), invalidator: deprecateInvalidatorGrpc },
    ExecuteSkill: { live: (r) => targets.active.some((s) => s.name === r.name), invalidator: executeInvalidatorGrpc },
    CreateBranch: { live: () => true, invalidator: createBranchInvalidatorGrpc },
  };
}

/** Wire-level mangling of an encoded request; on live targets only what cannot repair the invalid field. */
function wireForm(method, fields, live) {
  const strings = fields.filter((f) => f.type === 'TYPE_STRING' && (!live || f.name === 'name'));
  const enumFields = fields.filter((f) => f.type === 'TYPE_ENUM');
  const structField = fields.find((f) => f.typeName === 'google.protobuf.Struct');
  const forms = [fc.constantFrom(...Object.keys(WIRE_MUTATIONS)).map((name) => ({ name, mutate: WIRE_MUTATIONS[name] }))];
  if (strings.length) {
    forms.push(
      fc.tuple(fc.constantFrom(...strings), invalidUtf8).map(([f, bad]) => ({
        name: `invalidUtf8:${f.name}`,
        mutate: (bytes) => Buffer.concat([bytes, bytesField(f.number, Buffer.concat([Buffer.from('x'), bad]))]),
      })),
    );
  }
  if (enumFields.length) {
    forms.push(
      fc.tuple(fc.constantFrom(...enumFields), fc.constantFrom(6, 99, -1, 2 ** 31 - 1)).map(([f, n]) => ({
        name: `enumOutOfRange:${f.name}`,
        mutate: (bytes) => Buffer.concat([bytes, varintField(f.number, n)]),
      })),
    );
  }
  if (structField) {
    const deep = deepStructBytes(10_000);
    forms.push(
      fc.constant({
        name: `deepStruct:${structField.name}`,
        mutate: (bytes) => Buffer.concat([bytes, bytesField(structField.number, deep)]),
      }),
    );
  }
  return fc.oneof(...forms);
}

function rpcCase(name, method, targets, tokens, enums) {
  const fields = method.requestType.type.field;
  const rule = liveRules(targets)[name];
  const admin = ['Discover', 'RegisterSkill', 'PromoteSkill', 'DeprecateSkill'].includes(name);
  return fc
    .tuple(messageArbitrary(fields, targets, enums), tokenArbitrary(tokens, admin ? 12 : 3), fc.nat({ max: 3 }))
    .chain(([request, token, shape]) => {
      const live = rule ? rule.live(request) : false;
      const invalid = live ? rule.invalidator.map((invalidate) => invalidate(request)) : fc.constant(request);
      return invalid.chain((message) => {
        const base = { transport: 'grpc', route: name, rpc: name, token, live, streaming: method.responseStream };
        if (shape !== 0) return fc.constant({ ...base, request: message });
        return wireForm(method, fields, live).map((form) => {
          const bytes = form.mutate(method.requestSerialize(message));
          let undecodable = false;
          try {
            method.requestDeserialize(bytes);
          } catch {
            undecodable = true; // the server's deserializer (the same proto-loader code) refuses it too
          }
          return { ...base, route: `${name} [wire]`, wire: form.name, bytes, request: message, undecodable };
        });
      });
    });
}

/** Every RPC of the service as one arbitrary of gRPC cases. */
export function grpcCases(service, definition, targets, tokens) {
  const enums = {};
  for (const [key, value] of Object.entries(definition)) {
    if (value.format === 'Protocol Buffer 3 EnumDescriptorProto') enums[key.split('.').pop()] = value.type.value;
  }
  const rpcs = Object.entries(service).map(([name, method]) => ({
    arbitrary: rpcCase(name, method, targets, tokens, enums),
    weight: name === 'Discover' ? 1 : 4,
  }));
  return { arbitrary: fc.oneof(...rpcs), operations: rpcs.length };
}
