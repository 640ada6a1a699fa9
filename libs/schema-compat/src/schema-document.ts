import { childPointer, valueAtPointer } from './json-pointer.js';
import { type SchemaNode, isSchemaNode, isSchemaObject, stringKeyword } from './keywords.js';

/** Which of the two compared schemas a document is. */
export type SchemaSide = 'old' | 'new';

/** A schema node together with the document and JSON pointer it sits at. */
export interface Located {
  readonly doc: SchemaDocument;
  readonly pointer: string;
  readonly node: SchemaNode;
}

/**
 * One of the two schemas under comparison: resolves local references (`#`, `#/$defs/...`,
 * `#/definitions/...`, `#anchor`) to JSON pointers. Remote references are not resolved.
 */
export class SchemaDocument {
  private readonly anchors = new Map<string, string>();

  constructor(
    readonly side: SchemaSide,
    readonly root: unknown,
  ) {
    this.collectAnchors(root, '');
  }

  /** The schema node at `pointer`, or undefined when nothing schema-like is there. */
  nodeAt(pointer: string): SchemaNode | undefined {
    const value = valueAtPointer(this.root, pointer);
    return isSchemaNode(value) ? value : undefined;
  }

  /** The located node at `pointer`; the caller knows the pointer designates a schema. */
  locate(pointer: string): Located {
    return { doc: this, pointer, node: this.nodeAt(pointer) ?? true };
  }

  /** The pointer a `$ref` value designates, or null when it is not a resolvable local reference. */
  resolveRef(ref: string): string | null {
    const fragment = this.localFragment(ref);
    if (fragment === null) return null;
    if (fragment === '' || fragment.startsWith('/')) return this.nodeAt(fragment) === undefined ? null : fragment;
    return this.anchors.get(fragment) ?? null;
  }

  private localFragment(ref: string): string | null {
    const rootId = isSchemaObject(this.root) ? stringKeyword(this.root, '$id') : undefined;
    const hash = ref.indexOf('#');
    const base = hash === -1 ? ref : ref.slice(0, hash);
    if (base !== '' && base !== rootId) return null;
    const fragment = hash === -1 ? '' : ref.slice(hash + 1);
    try {
      return decodeURIComponent(fragment);
    } catch {
      return null;
    }
  }

  private collectAnchors(value: unknown, pointer: string): void {
    if (Array.isArray(value)) {
      value.forEach((item, index) => this.collectAnchors(item, childPointer(pointer, index)));
      return;
    }
    if (!isSchemaObject(value)) return;
    // A $dynamicAnchor is also a plain anchor that $ref can name.
    for (const keyword of ['$anchor', '$dynamicAnchor']) {
      const anchor = stringKeyword(value, keyword);
      if (anchor !== undefined && !this.anchors.has(anchor)) this.anchors.set(anchor, pointer);
    }
    for (const [key, child] of Object.entries(value)) {
      if (key !== 'enum' && key !== 'const' && key !== 'examples' && key !== 'default')
        this.collectAnchors(child, childPointer(pointer, key));
    }
  }
}
