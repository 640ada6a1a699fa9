import { type Dialect, type DialectGrammar, GRAMMARS, dialectOfUri } from './dialects.js';
import { InvalidSchemaError } from './invalid-schema-error.js';
import { childPointer, describePointer, pointerTokens, valueAtPointer } from './json-pointer.js';
import { type SchemaNode, type SchemaObject, isSchemaNode, isSchemaObject, stringKeyword } from './keywords.js';
import { PointerMap } from './pointer-map.js';
import type { SchemaSide } from './schema-document.js';

/** A schema read in its dialect and written in 2020-12 keywords, with the way back to its own pointers. */
export interface TranslatedSchema {
  readonly dialect: Dialect;
  /** The same instances are valid under `root`, read as 2020-12, as under the schema read in its dialect. */
  readonly root: SchemaNode;
  readonly pointers: PointerMap;
}

/** Where a node sits in the schema as written and in the translation. */
interface Place {
  readonly original: string;
  readonly translated: string;
  /** The resource below the root the node sits in, if any: fragments there are relative to that resource. */
  readonly resource?: { readonly id: string; readonly original: string; readonly translated: string };
}

type MutableSchema = Record<string, unknown>;

const REFERENCE_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;
type ReferenceKeyword = (typeof REFERENCE_KEYWORDS)[number];

/** What draft-07 keeps of a node with `$ref`: the reference, and the definitions other references reach by pointer. */
const KEPT_BESIDE_REF = ['$ref', 'definitions', '$defs'];

const childPlace = (place: Place, ...tokens: (string | number)[]): Place => ({
  original: childPointer(place.original, ...tokens),
  translated: childPointer(place.translated, ...tokens),
  resource: place.resource,
});

/** One pass over a schema: builds fresh nodes (the input is never modified) and records every rename. */
class Translation {
  readonly pointers = new PointerMap();
  /** Original pointers of the nodes read as schemas. */
  private readonly read = new Set<string>();
  /** Objects and arrays built here, which may be changed; everything else is shared with the input. */
  private readonly owned = new WeakSet<object>();
  private readonly references: { node: MutableSchema; place: Place; keyword: ReferenceKeyword }[] = [];
  private readonly recursiveAnchors: MutableSchema[] = [];
  /** Translated pointers of the `$dynamicAnchor`s by name (the first one, as a single resource has one per name). */
  private readonly dynamicAnchors = new Map<string, string>();
  /** A subschema below the root has its own `$id`: dynamic references then depend on the path taken. */
  private nestedResources = false;
  private readonly grammar: DialectGrammar;

  constructor(
    private readonly original: SchemaNode,
    private readonly dialect: Dialect,
    private readonly side: SchemaSide,
  ) {
    this.grammar = GRAMMARS[dialect];
  }

  run(): SchemaNode {
    const root = this.node(this.original, { original: '', translated: '' });
    // A reference may reach a schema where the grammar expects none (`#/x-shapes/circle`): read it there too.
    for (let index = 0; index < this.references.length; index += 1) this.adoptTarget(root, this.references[index]);
    for (const reference of this.references) this.rewriteReference(reference);
    // With every $recursiveRef now a $ref, $recursiveAnchor (2019-09 only) has nothing left to do.
    if (!this.nestedResources) for (const node of this.recursiveAnchors) delete node.$recursiveAnchor;
    return root;
  }

  private own<T extends object>(value: T): T {
    this.owned.add(value);
    return value;
  }

  private node(value: SchemaNode, at: Place): SchemaNode {
    if (typeof value === 'boolean') return value;
    this.read.add(at.original);
    const source = this.grammar.refOverridesSiblings && typeof value.$ref === 'string' ? keepBesideRef(value) : value;
    const id = stringKeyword(source, '$id');
    const nested = at.original !== '' && id !== undefined && !(this.grammar.fragmentIds && id.startsWith('#'));
    if (nested) this.nestedResources = true;
    const place: Place = nested ? { ...at, resource: { id, original: at.original, translated: at.translated } } : at;
    const out: MutableSchema = this.own({});
    for (const [keyword, item] of Object.entries(source)) {
      if (this.grammar.foreign.has(keyword) || keyword === 'dependencies') continue;
      if (this.grammar.tupleItems && (keyword === 'items' || keyword === 'additionalItems')) continue;
      if (keyword === '$schema') {
        this.checkNestedDialect(item, place);
        continue;
      }
      if (keyword === '$id' && typeof item === 'string') {
        if (this.grammar.fragmentIds && item.startsWith('#')) {
          out.$anchor = item.slice(1);
          this.pointers.add(childPointer(place.original, '$id'), childPointer(place.translated, '$anchor'));
          continue;
        }
      }
      out[keyword] = this.keywordValue(keyword, item, place);
      if (keyword === '$recursiveAnchor') this.recursiveAnchors.push(out);
      if (keyword === '$dynamicAnchor' && typeof item === 'string' && !this.dynamicAnchors.has(item))
        this.dynamicAnchors.set(item, place.translated);
      if ((REFERENCE_KEYWORDS as readonly string[]).includes(keyword) && typeof item === 'string') {
        this.references.push({ node: out, place, keyword: keyword as ReferenceKeyword });
      }
    }
    if (this.grammar.tupleItems) this.tuple(source, out, place);
    this.dependencies(source, out, place);
    applyNullable(out);
    return out;
  }

  private keywordValue(keyword: string, item: unknown, place: Place): unknown {
    if (this.grammar.singles.includes(keyword) && isSchemaNode(item)) return this.node(item, childPlace(place, keyword));
    if (this.grammar.lists.includes(keyword) && Array.isArray(item)) {
      return this.own(item.map((entry, index) => (isSchemaNode(entry) ? this.node(entry, childPlace(place, keyword, index)) : entry)));
    }
    if (this.grammar.maps.includes(keyword) && isSchemaObject(item)) {
      const entries = Object.entries(item).map(([name, entry]) => [
        name,
        isSchemaNode(entry) ? this.node(entry, childPlace(place, keyword, name)) : entry,
      ]);
      return this.own(Object.fromEntries(entries));
    }
    return item;
  }

  /** draft-07/2019-09 `items` as a list is `prefixItems`, and `additionalItems` beside it is `items`; otherwise it is ignored. */
  private tuple(source: SchemaObject, out: MutableSchema, place: Place): void {
    const items = source.items;
    if (isSchemaNode(items)) {
      out.items = this.node(items, childPlace(place, 'items'));
      return;
    }
    if (!Array.isArray(items)) return;
    const prefix = { ...place, original: childPointer(place.original, 'items'), translated: childPointer(place.translated, 'prefixItems') };
    this.pointers.add(prefix.original, prefix.translated);
    out.prefixItems = this.own(
      items.map((entry, index) =>
        isSchemaNode(entry)
          ? this.node(entry, {
              ...place,
              original: childPointer(prefix.original, index),
              translated: childPointer(prefix.translated, index),
            })
          : entry,
      ),
    );
    const rest = source.additionalItems;
    if (!isSchemaNode(rest)) return;
    const restPlace = {
      ...place,
      original: childPointer(place.original, 'additionalItems'),
      translated: childPointer(place.translated, 'items'),
    };
    this.pointers.add(restPlace.original, restPlace.translated);
    out.items = this.node(rest, restPlace);
  }

  /**
   * `dependencies` (draft-07, and still applied by 2019-09 and 2020-12 validators): a list of names is
   * `dependentRequired`, a schema is `dependentSchemas`. Beside those keywords themselves it goes in an
   * added `allOf` entry, so neither overrides the other.
   */
  private dependencies(source: SchemaObject, out: MutableSchema, place: Place): void {
    const dependencies = source.dependencies;
    if (!isSchemaObject(dependencies)) return;
    const collides = 'dependentRequired' in out || 'dependentSchemas' in out;
    const allOf = Array.isArray(out.allOf) ? out.allOf : this.own([]);
    const holder: MutableSchema = collides ? this.own({}) : out;
    const base = collides ? childPointer(place.translated, 'allOf', allOf.length) : place.translated;
    const originalBase = childPointer(place.original, 'dependencies');
    const required: MutableSchema = this.own({});
    const schemas: MutableSchema = this.own({});
    for (const [name, entry] of Object.entries(dependencies)) {
      const original = childPointer(originalBase, name);
      if (Array.isArray(entry)) {
        required[name] = entry;
        this.pointers.add(original, childPointer(base, 'dependentRequired', name));
      } else if (isSchemaNode(entry)) {
        const translated = childPointer(base, 'dependentSchemas', name);
        this.pointers.add(original, translated);
        schemas[name] = this.node(entry, { ...place, original, translated });
      }
    }
    if (Object.keys(required).length > 0) {
      holder.dependentRequired = required;
      this.pointers.add(originalBase, childPointer(base, 'dependentRequired'));
    }
    if (Object.keys(schemas).length > 0) {
      holder.dependentSchemas = schemas;
      this.pointers.add(originalBase, childPointer(base, 'dependentSchemas'));
    }
    if (collides && Object.keys(holder).length > 0) {
      out.allOf = [...allOf, holder];
      this.pointers.add(originalBase, base);
    }
  }

  private checkNestedDialect(uri: unknown, place: Place): void {
    if (place.original === '' || (typeof uri === 'string' && dialectOfUri(uri) === this.dialect)) return;
    const where = describePointer(childPointer(place.original, '$schema'));
    throw new InvalidSchemaError(
      this.side,
      [`${where} names another dialect than the root's (${this.dialect}); a schema that mixes dialects is not read`],
      this.dialect,
    );
  }

  /** The base and fragment of a reference to this document (no base, or the root's `$id`), or null. */
  private localFragment(ref: string): { base: string; fragment: string } | null {
    const hash = ref.indexOf('#');
    if (hash === -1) return null;
    const base = ref.slice(0, hash);
    const rootId = isSchemaObject(this.original) ? stringKeyword(this.original, '$id') : undefined;
    if (base !== '' && base !== rootId) return null;
    try {
      return { base, fragment: decodeURIComponent(ref.slice(hash + 1)) };
    } catch {
      return null;
    }
  }

  /** The original pointer a local JSON-pointer reference designates, or null. */
  private localPointer(ref: string): { base: string; pointer: string } | null {
    const local = this.localFragment(ref);
    return local !== null && local.fragment.startsWith('/') ? { base: local.base, pointer: local.fragment } : null;
  }

  /** A fragment-only reference inside a resource below the root, as that resource's `$id` and its translated pointer. */
  private withinResource(ref: string, resource: NonNullable<Place['resource']>): string {
    const fragment = this.localFragment(`#${ref.slice(1)}`)?.fragment;
    if (fragment === undefined || !fragment.startsWith('/')) return `${resource.id}${ref}`;
    const target = this.pointers.toTranslated(resource.original + fragment);
    const inside = target.startsWith(resource.translated) ? target.slice(resource.translated.length) : fragment;
    return `${resource.id}#${encodePointer(inside)}`;
  }

  /** The reference with its target written as a pointer into the translation. */
  private translatedReference(ref: string): string {
    const local = this.localFragment(ref);
    if (local === null) return ref;
    // A $dynamicAnchor is a plain-name fragment too (2020-12 8.2.2), which Ajv's $ref does not resolve: name it by pointer.
    const anchored = this.nestedResources ? undefined : this.dynamicAnchors.get(local.fragment);
    if (anchored !== undefined) return `${local.base}#${encodePointer(anchored)}`;
    if (!local.fragment.startsWith('/')) return ref;
    const target = this.pointers.toTranslated(local.fragment);
    return target === local.fragment ? ref : `${local.base}#${encodePointer(target)}`;
  }

  /** Reads the target of a reference as a schema when the grammar did not reach it, in a copy of the path to it. */
  private adoptTarget(root: SchemaNode, reference: { node: MutableSchema; place: Place; keyword: ReferenceKeyword }): void {
    const local = this.localPointer(String(reference.node[reference.keyword]));
    if (local === null || this.read.has(local.pointer) || (reference.place.resource !== undefined && local.base === '')) return;
    const target = valueAtPointer(this.original, local.pointer);
    if (!isSchemaObject(target) || typeof root === 'boolean') return;
    const translated = this.pointers.toTranslated(local.pointer);
    const tokens = pointerTokens(translated);
    let parent: Record<string, unknown> = root;
    for (const token of tokens.slice(0, -1)) {
      const child = parent[token];
      if (typeof child !== 'object' || child === null) return;
      const copy = this.owned.has(child) ? child : this.own(Array.isArray(child) ? [...child] : { ...child });
      parent[token] = copy;
      parent = copy as Record<string, unknown>;
    }
    const last = tokens[tokens.length - 1];
    if (last === undefined || !(last in parent)) return;
    parent[last] = this.node(target, { original: local.pointer, translated });
  }

  /**
   * Points references at the translated places. In a schema that is one resource (no `$id` below the
   * root), `$dynamicRef` and `$recursiveRef: "#"` always land where `$ref` with the same value does.
   */
  private rewriteReference({ node, place, keyword }: { node: MutableSchema; place: Place; keyword: ReferenceKeyword }): void {
    const value = String(node[keyword]);
    if (place.resource !== undefined && value.startsWith('#')) {
      // A fragment inside a resource below the root is relative to that resource: name the resource.
      node[keyword] = this.withinResource(value, place.resource);
      return;
    }
    const rewritten = this.translatedReference(value);
    if (keyword === '$ref') {
      node.$ref = rewritten;
      return;
    }
    const resolvable = keyword === '$dynamicRef' || value === '#';
    if (this.nestedResources || '$ref' in node || !resolvable) {
      node[keyword] = rewritten;
      return;
    }
    delete node[keyword];
    node.$ref = rewritten;
    this.pointers.add(childPointer(place.original, keyword), childPointer(place.translated, '$ref'));
  }
}

/**
 * OpenAPI's `nullable: true` is no JSON Schema keyword, but Ajv (which validates this registry's inputs
 * and outputs) lets null through wherever it stands beside `type`; the checker reads it the same way.
 */
function applyNullable(out: MutableSchema): void {
  if (out.nullable !== true) return;
  const types = typeof out.type === 'string' ? [out.type] : Array.isArray(out.type) ? out.type : undefined;
  if (types === undefined || types.includes('null')) return;
  out.type = [...types, 'null'];
  delete out.nullable;
}

function keepBesideRef(node: SchemaObject): SchemaObject {
  return Object.fromEntries(Object.entries(node).filter(([keyword]) => KEPT_BESIDE_REF.includes(keyword)));
}

function encodePointer(pointer: string): string {
  return pointer.split('/').map(encodeURIComponent).join('/');
}

/**
 * Writes a valid schema of `dialect` in 2020-12 keywords, so that the checker, which reasons about
 * 2020-12, reads it as its own dialect does: draft-07 `dependencies`, `items` lists with
 * `additionalItems`, `$id: "#name"` anchors and `$ref` overriding its siblings; keywords the dialect
 * does not define are dropped. Throws InvalidSchemaError for a nested `$schema` of another dialect.
 */
export function translateSchema(schema: SchemaNode, dialect: Dialect, side: SchemaSide): TranslatedSchema {
  const translation = new Translation(schema, dialect, side);
  const root = translation.run();
  return { dialect, root, pointers: translation.pointers };
}
