// The gRPC counterparts of invalid-bodies.mjs. In proto3 an empty string or zero means "not
// given", and fields have fixed types, so the ways to be invalid differ from the REST bodies.
import fc from 'fast-check';
import { LONG, hostileString, withNul, wrongType } from './values.mjs';

/** JSON as a google.protobuf.Struct message (proto-loader object form). */
export function struct(json) {
  const value = (member) => {
    if (member === null || member === undefined) return { nullValue: 'NULL_VALUE' };
    if (typeof member === 'number') return { numberValue: member };
    if (typeof member === 'string') return { stringValue: member };
    if (typeof member === 'boolean') return { boolValue: member };
    if (Array.isArray(member)) return { listValue: { values: member.map(value) } };
    return { structValue: struct(member) };
  };
  return { fields: Object.fromEntries(Object.entries(json).map(([key, member]) => [key, value(member)])) };
}

const blank = fc.constantFrom(' ', '\t', '\n  ');
const tooLong = fc.constantFrom(2001, 5000, LONG).map((n) => 'r'.repeat(n));
const set = (patch) => (request) => ({ ...request, ...patch });

/** PromoteSkill on a REGISTERED version: a forced one without a usable reason, or a reason over 2000 characters. */
export const promoteInvalidatorGrpc = fc.oneof(
  fc.oneof(fc.constant(''), blank, withNul).map((reason) => set({ force: true, reason })),
  tooLong.map((reason) => set({ reason })),
);

/** DeprecateSkill on an ACTIVE skill that must be refused. */
export const deprecateInvalidatorGrpc = fc.oneof(
  fc.oneof(fc.constant(''), blank, withNul, tooLong).map((reason) => set({ reason })),
  fc
    .constantFrom(
      { seconds: 0, nanos: 0 },
      { seconds: 1000000000, nanos: 0 },
      { seconds: '99999999999999', nanos: 0 },
      { seconds: '-99999999999999', nanos: 0 },
      { seconds: 1, nanos: -5 },
    )
    .map((sunset) => set({ sunset })),
  fc.constantFrom('zz_no_such_skill', 'Bad Name', 'a@b').map((successor) => set({ successor })),
  fc.constantFrom('v1', '1.0', '1.0.0.0').map((version) => set({ version })),
);

const nonString = wrongType.filter((value) => typeof value !== 'string');
const echoInputInvalid = fc.oneof(
  fc.constant({}),
  nonString.map((text) => ({ text })),
  fc.constant({ text: '' }),
  fc.tuple(hostileString, wrongType).map(([text, extra]) => ({ text: text || 'x', extra })),
  withNul.map((text) => ({ text })),
);
const badKey = fc.oneof(fc.constantFrom('has space', 'ключ', 'tab\tkey'), withNul, tooLong);

/** ExecuteSkill on an ACTIVE skill that must be refused. */
export const executeInvalidatorGrpc = fc.oneof(
  fc.constant(set({ input: null })),
  echoInputInvalid.map((input) => set({ input: struct(input) })),
  withNul.map((session_id) => set({ input: struct({ text: 'ok' }), session_id })),
  tooLong.map((session_id) => set({ session_id })),
  badKey.map((idempotency_key) => set({ input: struct({ text: 'ok' }), idempotency_key })),
  fc.constantFrom('v1', '1.0', 'latest').map((version) => set({ version })),
);

/** CreateBranch that must be refused: a name the twin does not allow, or a fork point outside the parent's life. */
export const createBranchInvalidatorGrpc = fc.oneof(
  fc.oneof(fc.constantFrom('Main', 'a/b', '../main', '.hidden', 'x'.repeat(64), ' main'), withNul, blank).map((name) => set({ name })),
  fc.constant(set({ name: 'fuzz-branch', at: { seconds: 32503680000, nanos: 0 } })),
);
