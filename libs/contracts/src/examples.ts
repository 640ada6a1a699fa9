import { isDeepStrictEqual } from 'node:util';

/**
 * Whether an execution's output is the output an example declares: equal as JSON (key order and
 * `undefined` members do not count). The one rule promotion and the author CLI's `test` share.
 */
export function outputMatchesExample(actual: unknown, declared: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(actual ?? null)), JSON.parse(JSON.stringify(declared ?? null)));
}
