// Body rules of the routes and RPCs that change state when a request is valid. A fuzz case must be
// one a correct server refuses, so a case aimed at a target where the call could succeed (promote a
// REGISTERED version, deprecate an ACTIVE skill, execute an ACTIVE skill) always carries one of
// these invalidators, applied last so nothing generated before can repair it.
import fc from 'fast-check';
import { LONG, hostileString, withNul, wrongType } from './values.mjs';

const nonString = wrongType.filter((value) => typeof value !== 'string');
const nonBoolean = wrongType.filter((value) => typeof value !== 'boolean');
const nonObject = wrongType.filter((value) => value === null || typeof value !== 'object' || Array.isArray(value));
const blank = fc.constantFrom('', ' ', '\t', '\n  ');
const tooLong = fc.nat({ max: LONG }).map((extra) => 'r'.repeat(2001 + extra));
const unknownKey = fc.tuple(fc.constantFrom('extra', 'Reason', 'reason ', '__proto__', 'constructor', 'force_'), wrongType);

const set = (key, value) => (body) => ({ ...body, [key]: value });
const unset = (key) => (body) => Object.fromEntries(Object.entries(body).filter(([name]) => name !== key));
const both =
  (...patches) =>
  (body) =>
    patches.reduce((current, patch) => patch(current), body);
const addUnknown = unknownKey.map(([key, value]) => (body) => ({ ...body, [key]: value }));

/** A promotion of a REGISTERED version that must fail validation (an unforced valid one would run its examples). */
export const promoteInvalidator = fc.oneof(
  nonBoolean.map((value) => set('force', value)),
  nonString.map((value) => set('reason', value)),
  fc.constant(both(set('force', true), unset('reason'))),
  blank.map((reason) => both(set('force', true), set('reason', reason))),
  withNul.map((reason) => both(set('force', true), set('reason', reason))),
  tooLong.map((reason) => set('reason', reason)),
  addUnknown,
);

/** A deprecation of an ACTIVE skill that must fail validation. */
export const deprecateInvalidator = fc.oneof(
  fc.constant(unset('reason')),
  nonString.map((value) => set('reason', value)),
  blank.map((reason) => set('reason', reason)),
  withNul.map((reason) => set('reason', reason)),
  tooLong.map((reason) => set('reason', reason)),
  fc
    .oneof(fc.constantFrom('2000-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z', 'tomorrow', '2030-13-45T99:99:99Z', ''), nonString)
    .map((sunset) => set('sunset', sunset)),
  fc.oneof(fc.constantFrom('zz_no_such_skill', 'Bad Name', 'a@b', 'compare_results@x'), nonString).map((value) => set('successor', value)),
  fc.oneof(fc.constantFrom('v1', '1.0', '1.0.0.0', ' 1.0.0', ''), nonString).map((value) => set('version', value)),
  addUnknown,
);

/** Arguments/inputs the fixture echo skills ({ text: string, min 1 } strict) must refuse. */
export const echoInputInvalid = fc.oneof(
  nonObject,
  fc.constant({}),
  nonString.map((text) => ({ text })),
  fc.constant({ text: '' }),
  fc.tuple(hostileString, wrongType).map(([text, extra]) => ({ text: text || 'x', extra })),
  // jsonb cannot store U+0000: a server has to refuse this input, not fail on it.
  withNul.map((text) => ({ text })),
);

/** An execution request (REST body / gRPC fields) for an ACTIVE skill that must be refused. */
export const executeInvalidator = fc.oneof(
  { arbitrary: fc.constant(unset('input')), weight: 1 },
  { arbitrary: echoInputInvalid.map((input) => set('input', input)), weight: 4 },
  { arbitrary: withNul.map((sessionId) => both(set('input', { text: 'ok' }), set('session_id', sessionId))), weight: 2 },
  { arbitrary: fc.oneof(fc.constant(''), tooLong, nonString).map((sessionId) => set('session_id', sessionId)), weight: 1 },
  { arbitrary: fc.oneof(fc.constantFrom('v1', '1.0', 'latest', ''), nonString).map((version) => set('version', version)), weight: 1 },
  { arbitrary: addUnknown, weight: 1 },
);

/** Branch names the twin refuses (upper case, a slash, too long, NUL, not a string): a valid create would add a branch. */
const badBranchName = fc.oneof(fc.constantFrom('Main', 'a/b', '../main', '.hidden', 'x'.repeat(64), '', ' main'), withNul, nonString);

/** A branch creation that must fail validation (any valid name would create a branch). */
export const createBranchInvalidator = fc.oneof(
  badBranchName.map((name) => set('name', name)),
  fc.constant(unset('name')),
  fc.constantFrom('2999-01-01T00:00:00Z', 'yesterday', '2000-01-01T00:00:00Z').map((at) => both(set('name', 'fuzz-branch'), set('at', at))),
  addUnknown,
);
