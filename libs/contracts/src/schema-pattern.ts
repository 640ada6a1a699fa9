import { setFlagsFromString } from 'node:v8';

/**
 * A skill's JSON Schemas are its publisher's, and their `pattern` and `patternProperties` run in the registry and the
 * executor on anyone's input (and a handler's output): `^(a+)+$` against thirty `a`s and a `!` backtracks for seconds,
 * against forty for hours, with the process's event loop held the whole time. V8 can rerun a regular expression that
 * backtracks too much (past --regexp-backtracks-before-fallback, 50,000) on its linear-time engine instead; this turns
 * that on for the process. The engine has no lookaround, backreference or Unicode mode (the `u` flag), so each pattern
 * is compiled without `u` when it does not need it: a pattern without `\p{…}`, `\u{…}` or characters beyond the Basic
 * Multilingual Plane means the same either way, but for what `.` and a negated class count as one character in a
 * string with such characters (two UTF-16 units without `u`). A pattern with lookaround or a backreference (zod's email
 * pattern has lookaheads) keeps the backtracking engine. Written by hand: the engine is V8's; the rule is which
 * patterns may use it.
 */
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

/** What Ajv's standalone code (the examples check's cache of compiled validators) requires to find schemaRegExp. */
export const SCHEMA_REGEXP_MODULE = 'skill-registry:schema-regexp';

const NEEDS_UNICODE = /\\[pP]\{|\\u\{|[\u{10000}-\u{10FFFF}]/u;

/** Ajv's `code.regExp` for publishers' schemas (see above): Ajv asks for the `u` flag, given here only when needed. */
export const schemaRegExp = Object.assign(
  (source: string, flags: string): RegExp => {
    if (flags.includes('u') && !NEEDS_UNICODE.test(source)) {
      try {
        return new RegExp(source, flags.replace('u', ''));
      } catch {
        // valid in Unicode mode only
      }
    }
    return new RegExp(source, flags);
  },
  { code: `require(${JSON.stringify(SCHEMA_REGEXP_MODULE)}).schemaRegExp` },
);
