import fc from 'fast-check';
import { parse as fastQuerystring } from 'fast-querystring';
import { RequestInvalid } from './problem/domain-errors.js';
import { parseQueryString, refuseMalformedQuery } from './query-string.js';

const refusal = (raw: string) => {
  try {
    refuseMalformedQuery(parseQueryString(raw));
  } catch (error) {
    if (error instanceof RequestInvalid) return error.errors;
    throw error;
  }
  return null;
};

describe('the query string parser', () => {
  it('parses well-formed queries exactly as Fastify’s default (fast-querystring) does', () => {
    const component = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'b', '=', '+', '_', '.', '~', '%41', '%C3%A9', '%2B', '%26', '%3D', '%F0%9F%98%80', ' ') }),
      fc.string().map((text) => encodeURIComponent(text.toWellFormed())),
    );
    const query = fc
      .array(fc.tuple(component, fc.option(component)), { maxLength: 6 })
      .map((pairs) => pairs.map(([name, value]) => (value === null ? name : `${name}=${value}`)).join('&'));
    fc.assert(
      fc.property(query, (raw) => {
        expect({ ...parseQueryString(raw) }).toEqual({ ...fastQuerystring(raw) });
        expect(refusal(raw)).toBeNull();
      }),
    );
  });

  it('refuses malformed percent-encoding, naming each parameter once (fast-querystring kept the raw text)', () => {
    expect(fastQuerystring('name=%E0%A4%A')).toEqual({ name: '%E0%A4%A' });
    expect(refusal('name=%E0%A4%A&kind=mesh')).toEqual([{ field: 'name', message: expect.stringContaining('percent-encoding') }]);
    expect(refusal('a=%ZZ&a=%&b=%ED%A0%80')?.map((error) => error.field)).toEqual(['a', 'b']);
    expect(refusal('%FF=1')?.map((error) => error.field)).toEqual(['%FF']);
    expect(parseQueryString('x=%ZZ')).toEqual({ x: '%ZZ' });
  });

  it('keeps the shape routes rely on: a null prototype, repeated names as arrays, __proto__ as a plain key', () => {
    const query = parseQueryString('tag=a&tag=b&tag=c&__proto__=x&empty');
    expect(Object.getPrototypeOf(query)).toBeNull();
    expect(Object.entries(query)).toEqual([
      ['tag', ['a', 'b', 'c']],
      ['__proto__', 'x'],
      ['empty', ''],
    ]);
  });
});
