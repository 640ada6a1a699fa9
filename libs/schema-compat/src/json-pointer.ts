/** Escapes one reference token of a JSON pointer (RFC 6901). */
function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The pointer one or more levels below `pointer`. */
export function childPointer(pointer: string, ...tokens: (string | number)[]): string {
  return pointer + tokens.map((token) => `/${escapeToken(token)}`).join('');
}

/** The unescaped reference tokens of a pointer; `''` (the whole document) has none. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value `pointer` designates in `document`, or undefined when the path does not exist. */
export function valueAtPointer(document: unknown, pointer: string): unknown {
  let current: unknown = document;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(token)) current = current[Number(token)];
    else if (current !== null && typeof current === 'object' && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else return undefined;
  }
  return current;
}

/** How a pointer reads in a sentence: the root is called that rather than an empty string. */
export function describePointer(pointer: string): string {
  return pointer === '' ? 'the root' : pointer;
}
