/** Outcome of parsing a JSON text: the value, or a message with the line and column of the fault. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; message: string; line: number | null; column: number | null };

/** Parse JSON; on failure say what is wrong and where (1-based line and column). */
export function parseJsonText(text: string): JsonParseResult {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(source) as unknown };
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    // V8 says "at position N" for most faults but only quotes the text for others: find the offset ourselves then.
    const position = /at position (\d+)/.exec(raw);
    const offset = position ? Number(position[1]) : findSyntaxErrorOffset(source);
    const reason = raw
      .replace(/\s*in JSON at position \d+.*$/s, '')
      .replace(/, ".*" is not valid JSON$/s, '')
      .replace(/\s*\(line \d+ column \d+\)$/, '');
    if (offset === null) return { ok: false, message: reason, line: null, column: null };
    const before = source.slice(0, offset);
    return { ok: false, message: reason, line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
  }
}

/** Offset of the first character a JSON parser would reject, or null when the text is valid. */
function findSyntaxErrorOffset(text: string): number | null {
  let index = 0;
  const fail = (): never => {
    throw new JsonFault(index);
  };
  const skipSpace = () => {
    while (index < text.length && ' \t\n\r'.includes(text[index])) index++;
  };
  const expect = (literal: string) => {
    for (const character of literal) {
      if (text[index] !== character) fail();
      index++;
    }
  };
  const parseString = () => {
    expect('"');
    while (index < text.length && text[index] !== '"') {
      if (text.charCodeAt(index) < 0x20) fail();
      index += text[index] === '\\' ? 2 : 1;
    }
    expect('"');
  };
  const parseNumber = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(index));
    if (!match) fail();
    index += match![0].length;
  };
  const parseValue = (): void => {
    skipSpace();
    const character = text[index];
    if (character === '{') return parseContainer('}', true);
    if (character === '[') return parseContainer(']', false);
    if (character === '"') return parseString();
    for (const literal of ['true', 'false', 'null']) {
      if (character !== literal[0]) continue;
      if (!text.startsWith(literal, index)) fail();
      index += literal.length;
      return;
    }
    return parseNumber();
  };
  const parseContainer = (close: string, isObject: boolean) => {
    index++;
    skipSpace();
    if (text[index] === close) {
      index++;
      return;
    }
    for (;;) {
      if (isObject) {
        skipSpace();
        parseString();
        skipSpace();
        expect(':');
      }
      parseValue();
      skipSpace();
      if (text[index] === ',') {
        index++;
        continue;
      }
      expect(close);
      return;
    }
  };
  try {
    parseValue();
    skipSpace();
    if (index < text.length) fail();
    return null;
  } catch (error) {
    if (error instanceof JsonFault) return Math.min(error.offset, text.length);
    throw error;
  }
}

class JsonFault extends Error {
  constructor(readonly offset: number) {
    super(`JSON fault at ${offset}`);
  }
}
