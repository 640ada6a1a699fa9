import { clip, printable } from '#contracts/index.js';
import { RequestInvalid } from './problem/domain-errors.js';

/**
 * The query string parser of the HTTP server (Fastify's `querystringParser`), strict about
 * percent-encoding. Fastify's default (fast-querystring) keeps a component it cannot decode as the
 * raw text, so `name=%E0%A4%A` stored a name `%E0%A4%A` and `metadata=%E0%A4%A` was read as JSON
 * text. A parser must not throw (it runs in the router, outside any error handler: the process
 * would end), so it marks the query instead, and `refuseMalformedQuery` — called by the HTTP edge for every
 * request (checkParameters) — turns the mark into a 400 naming the parameter.
 *
 * Otherwise what fast-querystring gives: a null-prototype object, `+` as a space, a repeated name as
 * an array in order, a name without `=` as ''.
 */

const MALFORMED = Symbol('parameters whose percent-encoding is malformed');

type ParsedQuery = Record<string, string | string[]> & { [MALFORMED]?: string[] };

export function parseQueryString(raw: string): ParsedQuery {
  const query = Object.create(null) as ParsedQuery;
  if (raw.length === 0) return query;
  let malformed: string[] | undefined;
  for (const pair of raw.split('&')) {
    if (pair.length === 0) continue;
    const at = pair.indexOf('=');
    const rawName = at < 0 ? pair : pair.slice(0, at);
    const name = decodeComponent(rawName);
    const value = at < 0 ? '' : decodeComponent(pair.slice(at + 1));
    const key = name ?? rawName;
    if (name === null || value === null) (malformed ??= []).push(key);
    const text = value ?? pair.slice(at + 1);
    const existing = query[key];
    if (existing === undefined) query[key] = text;
    else if (Array.isArray(existing)) existing.push(text);
    else query[key] = [existing, text];
  }
  if (malformed) Object.defineProperty(query, MALFORMED, { value: malformed, enumerable: false });
  return query;
}

/** One component as text: `+` is a space, `%XX` escapes must form UTF-8; null when they do not. */
function decodeComponent(component: string): string | null {
  const spaced = component.includes('+') ? component.replace(/\+/g, ' ') : component;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return null;
  }
}

/** Throws RequestInvalid naming each query parameter whose percent-encoding was malformed. */
export function refuseMalformedQuery(query: unknown): void {
  const names = (query as ParsedQuery | null | undefined)?.[MALFORMED];
  if (!names?.length) return;
  const message = 'is not valid percent-encoding: each % starts a %XX escape of two hex digits, and the escapes form UTF-8';
  const errors = [...new Set(names)].map((name) => ({ field: printable(clip(name)), message }));
  throw new RequestInvalid(`Query is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
}
