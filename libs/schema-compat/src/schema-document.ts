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

/** An `$id` with a scheme names its resource whatever the base; a relative one would need resolving. */
const ABSOLUTE_URI = /^[a-z][a-z0-9+.-]*:/i;

/**
 * One of the two schemas under comparison: resolves references within the document (`#`,
 * `#/$defs/...`, `#/definitions/...`, `#anchor`, and the same fragments after the absolute `$id` of a
 * resource below the root) to JSON pointers. Remote references are not resolved.
 */
export class SchemaDocument {
  private readonly anchors: { name: string; pointer: string }[] = [];
  /** Pointers of the resources below the root (subschemas with their own `$id`). */
  private readonly resources: string[] = [];
  /** The absolute `$id`s of those resources, with their pointers. */
  private readonly resourceIds = new Map<string, string>();
  /** Every `$id` below the root as written: a reference to one points into this document. */
  private readonly innerIds = new Set<string>();

  constructor(
    readonly side: SchemaSide,
    readonly root: unknown,
  ) {
    this.collect(root, '');
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

  /** The pointer a `$ref` value designates, or null when it is not a resolvable reference within the document. */
  resolveRef(ref: string): string | null {
    const target = this.split(ref);
    if (target === null) return null;
    const resource = this.resourcePointer(target.base);
    if (resource === undefined) return null;
    if (target.fragment === '' || target.fragment.startsWith('/')) {
      const pointer = resource + target.fragment;
      return this.nodeAt(pointer) === undefined ? null : pointer;
    }
    // An anchor belongs to the resource it is declared in.
    return this.anchors.find((anchor) => anchor.name === target.fragment && this.resourceOf(anchor.pointer) === resource)?.pointer ?? null;
  }

  /** True when `ref` names this document or a resource in it, whether or not it resolves. */
  refersInside(ref: string): boolean {
    const base = this.split(ref)?.base;
    return base !== undefined && (this.resourcePointer(base) !== undefined || this.innerIds.has(base));
  }

  private resourcePointer(base: string): string | undefined {
    const rootId = isSchemaObject(this.root) ? stringKeyword(this.root, '$id') : undefined;
    return base === '' || base === rootId ? '' : this.resourceIds.get(base);
  }

  /** The pointer of the innermost resource holding `pointer` ('' for the root's). */
  private resourceOf(pointer: string): string {
    return this.resources.reduce(
      (best, resource) => ((pointer === resource || pointer.startsWith(`${resource}/`)) && resource.length > best.length ? resource : best),
      '',
    );
  }

  private split(ref: string): { base: string; fragment: string } | null {
    const hash = ref.indexOf('#');
    const base = hash === -1 ? ref : ref.slice(0, hash);
    try {
      return { base, fragment: decodeURIComponent(hash === -1 ? '' : ref.slice(hash + 1)) };
    } catch {
      return null;
    }
  }

  private collect(value: unknown, pointer: string): void {
    if (Array.isArray(value)) {
      value.forEach((item, index) => this.collect(item, childPointer(pointer, index)));
      return;
    }
    if (!isSchemaObject(value)) return;
    // A $dynamicAnchor is also a plain anchor that $ref can name.
    for (const keyword of ['$anchor', '$dynamicAnchor']) {
      const name = stringKeyword(value, keyword);
      if (name !== undefined) this.anchors.push({ name, pointer });
    }
    const id = stringKeyword(value, '$id');
    if (pointer !== '' && id !== undefined && !id.startsWith('#')) {
      this.resources.push(pointer);
      this.innerIds.add(id);
      if (ABSOLUTE_URI.test(id) && !this.resourceIds.has(id)) this.resourceIds.set(id, pointer);
    }
    for (const [key, child] of Object.entries(value)) {
      if (key !== 'enum' && key !== 'const' && key !== 'examples' && key !== 'default') this.collect(child, childPointer(pointer, key));
    }
  }
}
