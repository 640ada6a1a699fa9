import path from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { projectRoot } from '#database/paths.js';
import { framingFault, messageFieldsOf, requestTypeName } from './wire-framing.js';

const definition = protoLoader.loadSync(path.join(projectRoot(), 'proto/skill_registry.proto'), { keepCase: true });
const types = messageFieldsOf(definition);
const fieldsOf = (name: string) => types.get(name) ?? new Map<number, string>();

const tag = (field: number, wire: number) => Buffer.from([(field << 3) | wire]);
const delimited = (field: number, bytes: Buffer, length = bytes.length) => Buffer.concat([tag(field, 2), Buffer.from([length]), bytes]);

describe('the framing of a protobuf request', () => {
  it('knows the message fields of the request types and of the types nested in them (map entries)', () => {
    expect(fieldsOf('skillregistry.v1.CreateBranchRequest')).toEqual(new Map([[3, 'google.protobuf.Timestamp']]));
    expect(fieldsOf('skillregistry.v1.ExecuteSkillRequest').get(2)).toBe('google.protobuf.Struct');
    expect(fieldsOf('google.protobuf.Struct').get(1)).toBe('google.protobuf.Struct.Fields');
    expect(fieldsOf('google.protobuf.Struct.Fields').get(2)).toBe('google.protobuf.Value');
    expect(fieldsOf('skillregistry.v1.ListSkillsResponse').get(1)).toBe('skillregistry.v1.SkillSummary');
    expect(requestTypeName({ path: '/skillregistry.v1.Twin/CreateBranch', requestType: { type: { name: 'CreateBranchRequest' } } })).toBe(
      'skillregistry.v1.CreateBranchRequest',
    );
    expect(requestTypeName({ path: 'odd' })).toBeNull();
  });

  it('passes every well-framed message, as protobufjs writes them', () => {
    const root = protobuf.loadSync(path.join(projectRoot(), 'proto/skill_registry.proto'));
    const execute = root.lookupType('skillregistry.v1.ExecuteSkillRequest');
    const bytes = execute
      .encode(
        execute.fromObject({
          name: 'echo_text',
          input: { fields: { text: { stringValue: 'hi' }, n: { listValue: { values: [{ numberValue: 1 }] } } } },
          wait_seconds: 2,
        }),
      )
      .finish();
    expect(framingFault(bytes, fieldsOf('skillregistry.v1.ExecuteSkillRequest'), types)).toBeNull();
    expect(framingFault(Buffer.alloc(0), fieldsOf('skillregistry.v1.ExecuteSkillRequest'), types)).toBeNull();
  });

  it('finds a field that runs past the end of the message, or past the end of the message it is nested in', () => {
    const createBranch = fieldsOf('skillregistry.v1.CreateBranchRequest');
    // The fuzz drill's case: a name of 2^31 bytes holding one, which protobufjs decoded as the name 'x'.
    const huge = Buffer.concat([delimited(1, Buffer.from('a/b')), Buffer.from([0x0a, 0x80, 0x80, 0x80, 0x80, 0x08]), Buffer.from('x')]);
    expect(framingFault(huge, createBranch, types)).toMatch(/field 1 is longer than what is left/);
    // A map entry of the input (Struct) claiming more than its Struct holds (it reaches into the request's next field).
    const entry = Buffer.concat([
      delimited(1, Buffer.from('k')),
      delimited(2, Buffer.concat([tag(3, 2), Buffer.from([1]), Buffer.from('v')])),
    ]);
    const struct = Buffer.concat([tag(1, 2), Buffer.from([entry.length + 3]), entry]);
    const execute = Buffer.concat([delimited(1, Buffer.from('echo_text')), delimited(2, struct), delimited(3, Buffer.from('1.0.0'))]);
    expect(framingFault(execute, fieldsOf('skillregistry.v1.ExecuteSkillRequest'), types)).toMatch(/field 1 is longer/);
    // Two levels down: the entry's string value claims more than its Value holds (the entry itself fits its Struct).
    const value = Buffer.concat([tag(3, 2), Buffer.from([3]), Buffer.from('v')]);
    const entry2 = Buffer.concat([delimited(1, Buffer.from('k')), delimited(2, Buffer.concat([value, Buffer.from('ab')]), value.length)]);
    const execute2 = Buffer.concat([delimited(1, Buffer.from('echo_text')), delimited(2, delimited(1, entry2))]);
    expect(framingFault(execute2, fieldsOf('skillregistry.v1.ExecuteSkillRequest'), types)).toMatch(/field 3 is longer/);
  });

  it('finds cut tags, varints and fixed-width values, field 0 and wire types proto3 does not use', () => {
    const none = new Map<number, string>();
    expect(framingFault(Buffer.from([0x0a, 0xff]), none, types)).toMatch(/longer than what is left/);
    expect(framingFault(Buffer.from([0x80]), none, types)).toBe('a field tag is cut short');
    expect(framingFault(Buffer.from([0x08, 0x80]), none, types)).toBe('a varint is cut short');
    expect(framingFault(Buffer.from([0x09, 1, 2, 3]), none, types)).toBe('a 64-bit value is cut short');
    expect(framingFault(Buffer.from([0x0d, 1]), none, types)).toBe('a 32-bit value is cut short');
    expect(framingFault(Buffer.from([0x02, 0x00]), none, types)).toBe('a field numbered 0');
    expect(framingFault(Buffer.from([0x0b]), none, types)).toMatch(/wire type 3/);
    expect(framingFault(Buffer.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), none, types)).toBe(
      'a varint is cut short',
    );
  });
});
