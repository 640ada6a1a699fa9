/** A run's stored documents, as redaction pointers address them (`/input/…`, `/output/…`). */
export interface RunDocuments {
  input: Record<string, unknown>;
  output?: Record<string, unknown> | null;
}

/**
 * The reference tokens of a JSON Pointer (RFC 6901): `/a~1b/~0c` → `['a/b', '~c']`; null when it is not one.
 * (Written here rather than taken from `json-pointer`, whose lookups follow the prototype chain: a pointer through
 * `__proto__` would remove from Object.prototype. These walk own properties only.)
 */
export function parsePointer(text: string): string[] | null {
  if (text === '') return [];
  if (!text.startsWith('/') || /~[^01]|~$/.test(text)) return null;
  return text
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * `documents` without what `pointers` name (JSON Pointers rooted at `{ input, output }`): a copy, the originals
 * untouched. A pointer that names nothing is skipped; array elements are removed from the end first, so
 * `/input/list/0` and `/input/list/1` remove the two elements they named.
 */
export function redact<T extends RunDocuments>(documents: T, pointers: readonly string[]): T {
  if (pointers.length === 0) return documents;
  const copy = structuredClone(documents);
  const parsed = pointers.map(parsePointer).filter((tokens): tokens is string[] => tokens !== null && tokens.length > 0);
  for (const tokens of parsed.sort(laterFirst)) removeAt(copy, tokens);
  return copy;
}

function removeAt(root: unknown, tokens: string[]): void {
  let parent: unknown = root;
  for (const token of tokens.slice(0, -1)) {
    parent = ownChild(parent, token);
    if (parent === undefined) return;
  }
  const last = tokens[tokens.length - 1] as string;
  if (Array.isArray(parent)) {
    if (/^(0|[1-9]\d*)$/.test(last) && Number(last) < parent.length) parent.splice(Number(last), 1);
  } else if (isObject(parent) && Object.hasOwn(parent, last)) {
    delete parent[last];
  }
}

function ownChild(parent: unknown, token: string): unknown {
  if (Array.isArray(parent)) return /^(0|[1-9]\d*)$/.test(token) ? parent[Number(token)] : undefined;
  return isObject(parent) && Object.hasOwn(parent, token) ? parent[token] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Orders pointers so that, under one parent, higher array indexes (and later keys) are removed first. */
function laterFirst(a: string[], b: string[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const left = a[index] as string;
    const right = b[index] as string;
    if (left === right) continue;
    const numeric = /^\d+$/.test(left) && /^\d+$/.test(right);
    return numeric ? Number(right) - Number(left) : left < right ? 1 : -1;
  }
  return b.length - a.length;
}
