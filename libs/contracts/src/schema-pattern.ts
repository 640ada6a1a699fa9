import { setFlagsFromString } from 'node:v8';
import { LRUCache } from 'lru-cache';
import { check } from 'recheck';
import { childPointer } from './json-pointer.js';

/**
 * A skill's JSON Schemas are its publisher's, and their `pattern` and `patternProperties` run in the registry and the
 * executor on anyone's input (and a handler's output): `^(a+)+$` against thirty `a`s and a `!` backtracks for seconds,
 * against forty for hours, with the process's event loop held the whole time. V8 can rerun a regular expression that
 * backtracks too much (past --regexp-backtracks-before-fallback, 50,000) on its linear-time engine instead; this turns
 * that on for the process. The engine has no lookaround, backreference or Unicode mode (the `u` flag), so each pattern
 * is compiled without `u` when it does not need it: a pattern without `\p{…}`, `\u{…}` or characters beyond the Basic
 * Multilingual Plane means the same either way, but for what `.` and a negated class count as one character in a
 * string with such characters (two UTF-16 units without `u`). A pattern the engine cannot run (lookaround, a
 * backreference, Unicode mode) keeps the backtracking engine: unsafePatterns (below) is what a registration checks of
 * those. Written by hand: the engine is V8's and the analysis recheck's; the rule is which patterns may use which.
 */
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
// The `l` flag, by which runsOnLinearEngine asks V8 whether its linear-time engine can run a pattern at all.
setFlagsFromString('--enable-experimental-regexp-engine');

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

/** A pattern of a schema that could backtrack for long on some input, and why (see unsafePatterns). */
export interface UnsafePattern {
  /** JSON pointer, in the schema, of the `pattern` keyword or the `patternProperties` key. */
  pointer: string;
  pattern: string;
  reason: string;
}

/** Keywords whose values are data, not schemas: a `pattern` inside them is no pattern. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);
const ANALYSIS_TIMEOUT_MS = 2000;
const verdicts = new LRUCache<string, Promise<string | null>>({ max: 2000 });

/**
 * The patterns of `schema` (`pattern` values, `patternProperties` keys) that are not safe to run on anyone's input: the
 * ones V8's linear-time engine cannot run (lookaround, backreferences, Unicode mode, very large counted repetitions), so
 * that nothing would stop their backtracking, and that recheck (a ReDoS checker, in its own process) finds
 * super-linear, or cannot show linear within 2 s. A registration refuses them. Patterns the engine can run are not
 * analysed: schemaRegExp protects them at run time.
 */
export async function unsafePatterns(schema: unknown): Promise<UnsafePattern[]> {
  const found: { pointer: string; pattern: string }[] = [];
  collectPatterns(schema, '', found);
  const unsafe: UnsafePattern[] = [];
  for (const { pointer, pattern } of found) {
    const reason = await verdictOn(pattern);
    if (reason !== null) unsafe.push({ pointer, pattern, reason });
  }
  return unsafe;
}

function collectPatterns(node: unknown, pointer: string, found: { pointer: string; pattern: string }[]): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => collectPatterns(item, childPointer(pointer, index), found));
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    const at = childPointer(pointer, key);
    if (DATA_KEYWORDS.has(key)) continue;
    if (key === 'pattern' && typeof value === 'string') found.push({ pointer: at, pattern: value });
    if (key === 'patternProperties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const name of Object.keys(value)) found.push({ pointer: childPointer(at, name), pattern: name });
    }
    collectPatterns(value, at, found);
  }
}

function verdictOn(pattern: string): Promise<string | null> {
  const unicode = NEEDS_UNICODE.test(pattern);
  if (!unicode && runsOnLinearEngine(pattern)) return Promise.resolve(null);
  let verdict = verdicts.get(pattern);
  if (verdict === undefined) {
    verdict = analyse(pattern, unicode ? 'u' : '');
    verdicts.set(pattern, verdict);
  }
  return verdict;
}

function runsOnLinearEngine(pattern: string): boolean {
  try {
    // V8's own flag for its linear-time engine (valid once --enable-experimental-regexp-engine is set, above).
    // eslint-disable-next-line no-invalid-regexp
    new RegExp(pattern, 'l');
    return true;
  } catch {
    return false;
  }
}

async function analyse(pattern: string, flags: string): Promise<string | null> {
  const unprotected = 'V8 cannot run it in linear time (lookaround, a backreference, Unicode mode or a large counted repetition)';
  let diagnostics: Awaited<ReturnType<typeof check>>;
  try {
    diagnostics = await check(pattern, flags, { timeout: ANALYSIS_TIMEOUT_MS });
  } catch (error) {
    return `${unprotected}, and it could not be analysed: ${(error as Error).message}`;
  }
  if (diagnostics.status === 'safe') return null;
  if (diagnostics.status === 'vulnerable') {
    return `${unprotected}, and it can take ${diagnostics.complexity.type} time, e.g. on ${diagnostics.attack.pattern}`;
  }
  // Not a valid pattern at all: the schema's own check reports that.
  if (diagnostics.error.kind === 'invalid') return null;
  return `${unprotected}, and it could not be shown to run in linear time (${diagnostics.error.kind})`;
}

/** The finding of a registration that meets an unsafe pattern in its `role` schema. */
export function unsafePatternMessage(role: 'input' | 'output', unsafe: UnsafePattern): string {
  return `the ${role} schema's pattern ${JSON.stringify(unsafe.pattern)} is not safe to run on callers' input: ${unsafe.reason}`;
}

export const UNSAFE_PATTERN_HINT =
  "Patterns run on everyone's input in the registry and the executor. Write it without lookaround and backreferences (V8 then stops any long backtracking), or without a repetition inside a repetition such as (a+)+.";
