import { ModulesContainer } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type LicenseObject, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ACCESS_LEVEL } from '../auth/auth.guard.js';
import type { AccessLevel } from '../auth/token-authenticator.js';
import { PROBLEM_CODES_METADATA, RESPONSE_HEADERS, headerRefs } from './api-decorators.js';
import { type JsonSchema, componentRef, componentSchemas } from './openapi-components.js';
import { PROBLEMS, type ProblemCode, problemDetailsView } from './problem-catalog.js';

type Operation = {
  operationId?: string;
  description?: string;
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, unknown> };
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
  security?: Record<string, string[]>[];
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** Routes the Host check leaves open (http-edge/host-guard.ts), and those a browser page may reach (Origin checked). */
const UNGUARDED_PATHS = new Set(['/healthz', '/readyz']);
const BROWSER_REACHABLE = /^\/(mcp|v1\/executions\/\{id\}\/events)$/;

const ACCESS: Record<AccessLevel, { security: Record<string, string[]>[]; codes: ProblemCode[]; note: string }> = {
  public: { security: [], codes: [], note: 'No token needed.' },
  read: {
    security: [{}, { bearer: [] }],
    codes: ['UNAUTHENTICATED'],
    note: 'Any known token, or none while AGENT_TOKENS is unset (an unknown token is always 401).',
  },
  write: { security: [{ bearer: [] }], codes: ['UNAUTHENTICATED'], note: 'An agent, publisher or admin token (recorded as the writer).' },
  publish: {
    security: [{ bearer: [] }],
    codes: ['UNAUTHENTICATED', 'FORBIDDEN'],
    note: 'A publisher token whose scopes cover the skill name, or an admin token.',
  },
  admin: { security: [{ bearer: [] }], codes: ['UNAUTHENTICATED', 'FORBIDDEN'], note: 'An admin token.' },
};

/**
 * The OpenAPI 3.1 document of the REST API, built from the controllers' decorators and completed
 * from the code that decides the answers: security and 401/403 from each route's access level (the
 * AuthGuard's metadata), problem responses from the one error mapper (problem-catalog.ts), the
 * errors every route shares from the HTTP edge, and the schemas from the zod views.
 */
export function createRegistryDocument(app: NestFastifyApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Skill Registry')
    .setDescription(
      'Catalog, lifecycle and execution of engineering skills for AI agents. Errors are RFC 9457 problem details ' +
        '(`application/problem+json`) with a stable `code`. The same operations are served over gRPC and MCP.',
    )
    .setVersion('1')
    .addServer('{scheme}://{host}', 'The registry this document was fetched from', {
      scheme: { default: 'http', enum: ['http', 'https'] },
      host: { default: 'localhost:3000', description: 'HOST:PORT of the registry (npm start: localhost:3000)' },
    })
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'An opaque token from ADMIN_TOKENS, PUBLISHER_TOKENS or AGENT_TOKENS (`Authorization: Bearer <token>`); not a JWT.',
      },
      'bearer',
    )
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, for GET /metrics only (when it is set)' }, 'metricsToken')
    .build();
  // The package is private and declares no licence (package.json, no LICENSE file): say so, as an SPDX reference.
  config.info.license = { name: 'Proprietary: no licence is granted (UNLICENSED)', identifier: 'LicenseRef-Proprietary' } as LicenseObject;
  delete config.info.contact;
  // DocumentBuilder gives every bearer scheme `bearerFormat: JWT`; these tokens are opaque.
  for (const scheme of Object.values(config.components?.securitySchemes ?? {})) delete (scheme as { bearerFormat?: string }).bearerFormat;
  const document = SwaggerModule.createDocument(app, config);
  const controllers = controllerClasses(app);
  const used = new Set<ProblemCode>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (!operation) continue;
      // Nest's operationId is `<controller class>_<method>`.
      const operationId = operation.operationId ?? '';
      const split = operationId.indexOf('_');
      const [controllerName, methodName] = [operationId.slice(0, split), operationId.slice(split + 1)];
      const controller = controllers.get(controllerName ?? '');
      const handler = (controller?.prototype as Record<string, unknown> | undefined)?.[methodName ?? ''];
      if (!controller || typeof handler !== 'function') throw new Error(`OpenAPI: no handler for ${operation.operationId}`);
      for (const code of completeOperation(path, operation, controller, handler)) used.add(code);
    }
  }
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...componentSchemas() },
    headers: RESPONSE_HEADERS as unknown as Record<string, JsonSchema>,
    // One example per problem code, as the error mapper renders it (the instance is the request path).
    examples: Object.fromEntries(
      [...used].sort().map((code) => [code, { summary: `${PROBLEMS[code].status} ${code}`, value: PROBLEMS[code].body }]),
    ),
  };
  return document;
}

/** Every controller class of the application, by name (the first half of Nest's operationId). */
function controllerClasses(app: NestFastifyApplication): Map<string, abstract new (...args: never[]) => unknown> {
  const classes = new Map<string, abstract new (...args: never[]) => unknown>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const metatype = wrapper.metatype as (abstract new (...args: never[]) => unknown) | null;
      if (metatype) classes.set(metatype.name, metatype);
    }
  }
  return classes;
}

/** Security, access note and problem responses of one operation; returns the problem codes it documents. */
function completeOperation(path: string, operation: Operation, controller: object, handler: object): ProblemCode[] {
  // The AuthGuard's rule: the method's mark wins over its class's; unmarked routes are reads.
  const level: AccessLevel =
    (Reflect.getMetadata(ACCESS_LEVEL, handler) as AccessLevel | undefined) ??
    (Reflect.getMetadata(ACCESS_LEVEL, controller) as AccessLevel | undefined) ??
    'read';
  const access = ACCESS[level];
  // A public route with a check of its own (GET /metrics) declares its security itself, and says so.
  if (!(level === 'public' && operation.security)) {
    operation.security = access.security;
    operation.description = [operation.description, `**Access:** ${access.note}`].filter(Boolean).join('\n\n');
  }

  const declared = (Reflect.getMetadata(PROBLEM_CODES_METADATA, handler) as ProblemCode[] | undefined) ?? [];
  const codes = new Set<ProblemCode>([...declared, ...access.codes, 'VALIDATION_FAILED', 'INTERNAL']);
  if (!UNGUARDED_PATHS.has(path)) codes.add('HOST_NOT_ALLOWED');
  if (BROWSER_REACHABLE.test(path)) codes.add('ORIGIN_NOT_ALLOWED');
  if (operation.parameters?.some((parameter) => parameter.in === 'path')) codes.add('MALFORMED_URL');
  // JSON bodies pass the strict parser and the size limit first (on /mcp its refusals are JSON-RPC errors).
  if (operation.requestBody?.content?.['application/json'] && path !== '/mcp') {
    for (const code of ['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const) codes.add(code);
  }
  addProblemResponses(operation, [...codes]);
  return [...codes];
}

function addProblemResponses(operation: Operation, codes: ProblemCode[]): void {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codes) {
    const { status } = PROBLEMS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    statusCodes.sort();
    const headers = [...new Set(statusCodes.flatMap((code) => Object.keys(PROBLEMS[code].headers)))] as (keyof typeof RESPONSE_HEADERS)[];
    const content = {
      'application/problem+json': {
        schema: {
          allOf: [
            componentRef(problemDetailsView),
            { type: 'object', properties: { status: { const: status }, code: { enum: statusCodes } } },
          ],
        },
        examples: Object.fromEntries(statusCodes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    };
    const existing = operation.responses[String(status)];
    if (existing) {
      existing.content = { ...existing.content, ...content };
      existing.description = `${existing.description}; problem details: ${statusCodes.join(', ')}`;
    } else {
      operation.responses[String(status)] = {
        description: `${PROBLEMS[statusCodes[0] as ProblemCode].body.title}: ${statusCodes.join(', ')}`,
        ...(headers.length ? { headers: headerRefs(headers) } : {}),
        content,
      };
    }
  }
}
