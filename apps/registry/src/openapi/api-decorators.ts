import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiQuery, ApiResponse, type SchemaObject } from '@nestjs/swagger';
import type { z } from 'zod';
import { type JsonSchema, componentRef, inlineSchema } from './openapi-components.js';
import type { ProblemCode } from './problem-catalog.js';

/**
 * Documentation decorators of the REST controllers. They change nothing at run time: they say what a
 * route answers, with schemas generated from the zod views the presenters are typed by. Problem
 * responses, security and the errors every route shares are added by registry-document.ts.
 */

export const PROBLEM_CODES_METADATA = 'skill-registry:openapi:problem-codes';

/** Response headers the API sends, documented once (components.headers). */
export const RESPONSE_HEADERS = {
  ETag: { description: 'Validator of the body: send it back in If-None-Match for a 304', schema: { type: 'string' } },
  'Cache-Control': { description: 'How long the body may be reused', schema: { type: 'string' } },
  Location: { description: 'Where the created or accepted resource is', schema: { type: 'string' } },
  Deprecation: { description: 'RFC 9745: `@<epoch seconds>` when the version is DEPRECATED', schema: { type: 'string' } },
  Sunset: { description: 'RFC 8594: when a DEPRECATED version stops working (HTTP date)', schema: { type: 'string' } },
  Link: { description: 'RFC 8288: `<…>; rel="successor-version"` when a successor is named', schema: { type: 'string' } },
  Warning: { description: 'Deprecation notices about the executed version (`299 - "…"`)', schema: { type: 'string' } },
  'X-Revision': { description: 'The revision number the content belongs to', schema: { type: 'integer' } },
  'Content-Disposition': {
    description: 'A download: the archive (`<name>-<version>.tar.gz`), or a package file a browser would open as a page',
    schema: { type: 'string' },
  },
  'Content-Security-Policy': {
    description: "`sandbox; default-src 'none'; …`: a publisher's bytes never run as a page of the registry's origin",
    schema: { type: 'string' },
  },
  'X-Content-Type-Options': { description: '`nosniff`: the bytes are only what their Content-Type says', schema: { type: 'string' } },
  'WWW-Authenticate': { description: 'RFC 6750 challenge: `Bearer realm="skill-registry"`', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds after which a retry may succeed', schema: { type: 'integer' } },
  'Mcp-Session-Id': { description: 'The MCP session opened by initialize (2025-era clients)', schema: { type: 'string' } },
} as const;
export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

/** Headers sent about a DEPRECATED version. */
export const DEPRECATION_HEADERS: ResponseHeader[] = ['Deprecation', 'Sunset', 'Link'];

export function headerRefs(names: readonly ResponseHeader[] = []): Record<string, { $ref: string }> | undefined {
  if (names.length === 0) return undefined;
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

interface ResponseOptions {
  description: string;
  headers?: readonly ResponseHeader[];
  /** Named examples of the body (taken from the catalog where they exist). */
  examples?: Record<string, { summary?: string; value: unknown }>;
}

/** A JSON answer whose body is the registered view `schema`. */
export function ApiJson(status: number, schema: z.ZodType, options: ResponseOptions) {
  return ApiResponse({
    status,
    description: options.description,
    headers: headerRefs(options.headers),
    content: { 'application/json': { schema: componentRef(schema), ...(options.examples ? { examples: options.examples } : {}) } },
  });
}

/** A non-JSON answer: bytes, archives, streams (`schema` describes the body as a string). */
export function ApiContent(status: number, mediaTypes: Record<string, JsonSchema>, options: ResponseOptions) {
  return ApiResponse({
    status,
    description: options.description,
    headers: headerRefs(options.headers),
    content: Object.fromEntries(Object.entries(mediaTypes).map(([type, schema]) => [type, { schema }])),
  });
}

/** A body of raw bytes in any media type. */
export const BINARY = { type: 'string', description: 'The bytes, as stored' };

/** 304 for a conditional GET whose If-None-Match matches the ETag (no body), with the If-None-Match header documented. */
export function ApiNotModified() {
  return applyDecorators(
    ApiHeader({ name: 'If-None-Match', required: false, description: 'ETag(s) of a copy the caller holds' }),
    ApiResponse({
      status: 304,
      description: 'Not Modified: the copy the caller holds (If-None-Match) is current; no body',
      headers: headerRefs(['ETag', 'Cache-Control']),
    }),
  );
}

/**
 * The problem codes a route answers with beyond those every route shares (authentication, Host,
 * parameters, body parsing, 500): grouped by their status into application/problem+json responses.
 */
export function ApiProblems(...codes: ProblemCode[]) {
  return SetMetadata(PROBLEM_CODES_METADATA, codes);
}

type QueryDescriptions<T extends z.ZodObject> = { [K in keyof T['shape']]?: string };

/**
 * Query parameters generated from the zod schema the route parses them with (names, types, bounds,
 * enums, defaults, which are required); a parameter that may repeat is an exploded array.
 */
export function ApiQueryParams<T extends z.ZodObject>(schema: T, descriptions: QueryDescriptions<T> = {}) {
  const object = inlineSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  const required = new Set(object.required ?? []);
  return applyDecorators(
    ...Object.entries(object.properties ?? {}).map(([name, property]) => {
      const repeatable = (property.anyOf as JsonSchema[] | undefined)?.find((option) => option.type === 'array');
      return ApiQuery({
        name,
        required: required.has(name),
        description: (descriptions as Record<string, string | undefined>)[name],
        schema: repeatable ?? property,
        ...(repeatable ? { style: 'form', explode: true } : {}),
      });
    }),
  );
}

/** A request body of raw bytes (`mediaType`, or any media type). */
export function ApiBinaryBody(description: string, mediaType?: string) {
  return ApiBody({ description, schema: { ...BINARY, ...(mediaType ? { contentMediaType: mediaType } : {}) } as SchemaObject });
}
