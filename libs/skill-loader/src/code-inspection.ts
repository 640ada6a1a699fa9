import { checkHandlerSchemas, pickHandlerClass } from './handler-check.js';
import type { HandlerLoader } from './handler-loader.js';
import { IssueList, type ValidationIssue } from './issues.js';
import { resolveSchema, type ResolvedSchema, type SchemaRole } from './schema-check.js';

/** The definition fields that code inspection needs, where definition.json gave them validly. */
export interface SchemaReferences {
  input_schema?: string;
  output_schema?: string;
}

/** Which of the package's code files are there (a missing one was reported by the file checks). */
export interface CodeFiles {
  schema: boolean;
  handler: boolean;
}

/** What evaluating a package's code yields: the JSON Schemas its definition names, and what was wrong. */
export interface CodeInspection {
  inputJsonSchema: Record<string, unknown> | null;
  outputJsonSchema: Record<string, unknown> | null;
  /** Findings of categories `schema` and `handler` only. */
  issues: ValidationIssue[];
}

/**
 * Runs the part of a package check that evaluates the package's own code (schema.ts, handler.ts). Package
 * code is untrusted: the registry gives an inspector that runs this in a sandbox process
 * (libs/handler-sandbox, PackageInspector); an author's tools run it in-process on their own code.
 */
export type CodeInspector = (packagePath: string, references: SchemaReferences, files: CodeFiles) => Promise<CodeInspection>;

/**
 * Evaluates schema.ts and handler.ts of the package at `packagePath` in a fresh module scope: the schemas
 * `references` name, turned into JSON Schema and checked against the schema rules, and the handler class,
 * checked to be the single SkillBase subclass using those schemas. Never throws for what the package does.
 */
export function inspectPackageCode(
  handlers: HandlerLoader,
  packagePath: string,
  references: SchemaReferences,
  files: CodeFiles,
): CodeInspection {
  const issues = new IssueList();
  const sdk = handlers.runtime.sdk;
  const scope = handlers.runtime.openScope();
  const schemaExports = files.schema ? handlers.importModule(scope, packagePath, 'schema.ts', 'schema', issues) : null;
  const resolved: Record<SchemaRole, ResolvedSchema | null> = { input: null, output: null };
  if (schemaExports) {
    const reportedPointers = new Set<string>();
    for (const role of ['input', 'output'] as const) {
      const reference = references[`${role}_schema`];
      if (reference !== undefined) resolved[role] = resolveSchema(role, reference, schemaExports, sdk, issues, reportedPointers);
    }
  }
  const handlerExports = files.handler ? handlers.importModule(scope, packagePath, 'handler.ts', 'handler', issues) : null;
  const found = handlerExports ? pickHandlerClass(handlerExports, sdk, issues) : null;
  if (found && schemaExports) {
    for (const role of ['input', 'output'] as const) {
      const expected = resolved[role];
      if (expected) checkHandlerSchemas(found, role, expected, schemaExports, issues);
    }
  }
  return {
    inputJsonSchema: resolved.input?.jsonSchema ?? null,
    outputJsonSchema: resolved.output?.jsonSchema ?? null,
    issues: issues.items,
  };
}
