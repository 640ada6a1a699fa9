/** One renamed place: where a schema sits in the document as written and in its 2020-12 translation. */
interface Rename {
  readonly original: string;
  readonly translated: string;
}

function under(pointer: string, prefix: string): boolean {
  return pointer === prefix || pointer.startsWith(`${prefix}/`);
}

function relocate(pointer: string, renames: readonly Rename[], from: keyof Rename, to: keyof Rename): string {
  let best: Rename | undefined;
  for (const rename of renames) {
    if (under(pointer, rename[from]) && (best === undefined || rename[from].length > best[from].length)) best = rename;
  }
  return best === undefined ? pointer : best[to] + pointer.slice(best[from].length);
}

/**
 * Maps JSON pointers between a schema as written and its translation into 2020-12 keywords, where
 * keywords were renamed (`dependencies/a` → `dependentRequired/a`, `items/0` → `prefixItems/0`).
 * Every rename is recorded with both full pointers, so the longest recorded prefix decides.
 */
export class PointerMap {
  private readonly renames: Rename[] = [];

  /** Records that what sits at `original` in the written schema sits at `translated` in the translation. */
  add(original: string, translated: string): void {
    if (original !== translated) this.renames.push({ original, translated });
  }

  /** The pointer in the schema as written of a pointer into the translation. */
  toOriginal(translated: string): string {
    return relocate(translated, this.renames, 'translated', 'original');
  }

  /** The pointer in the translation of a pointer into the schema as written. */
  toTranslated(original: string): string {
    return relocate(original, this.renames, 'original', 'translated');
  }
}
