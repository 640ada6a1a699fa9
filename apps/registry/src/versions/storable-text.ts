import type { ValidationIssue } from '#skill-loader/index.js';

/** Postgres text and jsonb hold neither a NUL character nor a lone UTF-16 surrogate (`"\ud800"` in JSON). */
function isStorable(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/** The text as it can be stored: each lone surrogate and NUL replaced by U+FFFD. */
function stored(text: string): string {
  return isStorable(text) ? text : text.toWellFormed().replaceAll('\u0000', '\uFFFD');
}

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const pointerPart = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Every string of a version about to be stored (keys too) that Postgres cannot hold, found and replaced: one
 * error finding per field, so a published package is refused with a report naming it (422, nothing stored) and
 * a package on disk is stored as a DRAFT with the finding, its text replaced so that the DRAFT can be written.
 * Fields are named as the package spells them (`/tags/1`, `/examples/0/input/text`).
 */
export function storableVersion<T extends object>(version: T, file: string): { version: T; issues: ValidationIssue[] } {
  const pointers: string[] = [];
  const walk = (value: unknown, at: string): unknown => {
    if (typeof value === 'string') {
      if (!isStorable(value)) pointers.push(at);
      return stored(value);
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, `${at}/${index}`));
    if (value === null || typeof value !== 'object' || value instanceof Date || ArrayBuffer.isView(value)) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        const name = at === '' ? snakeCase(key) : key;
        if (!isStorable(key)) pointers.push(`${at}/${pointerPart(stored(name))}`);
        return [stored(key), walk(item, `${at}/${pointerPart(stored(name))}`)];
      }),
    );
  };
  const cleaned = walk(version, '') as T;
  const issues = pointers.map((path): ValidationIssue => ({
    severity: 'error',
    category: 'definition',
    file,
    path,
    message: `text at ${path} cannot be stored: it holds a NUL character or a lone UTF-16 surrogate`,
    hint: 'Remove the character, or write it as valid Unicode (a surrogate pair, not half of one).',
  }));
  return { version: pointers.length === 0 ? version : cleaned, issues };
}
