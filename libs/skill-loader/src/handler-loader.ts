import type { SkillHandlerClass } from '@skill-registry/sdk';
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cacheSubdir, resolveCacheDir } from './cache-dir.js';
import { checkHandlerSchemas, pickHandlerClass } from './handler-check.js';
import { IssueList } from './issues.js';
import { describeLoadError } from './load-error.js';
import { PackageModuleRuntime, type ModuleScope } from './module-runtime.js';
import { exportNameOf, type ResolvedSchema } from './schema-check.js';

/** What the handler loader needs of a definition that was checked when the version was registered. */
export interface HandlerDefinition {
  name: string;
  input_schema: string;
  output_schema: string;
}

/** Options of HandlerLoader.create (see SkillPackageLoaderOptions for their meaning). */
export interface HandlerLoaderOptions {
  sdkEntry?: string;
  cacheDir?: string | false;
  transpiler?: 'swc' | 'babel';
  /** JavaScript transpiled ahead of time, used instead of transpiling (see ModuleRuntimeOptions.precompiledDir). */
  precompiledDir?: string | null;
}

type SkillLoadErrorClass = new (skillName: string, reason: string, path: string) => Error;

/**
 * Evaluates the handler of a registered package, for the executor's sandbox threads: only the module
 * runtime and the handler checks, not the package validation (definition parsing, example validators,
 * SKILL.md), so that each thread carries as little as it can. SkillPackageLoader uses it too.
 */
export class HandlerLoader {
  /** Directory of the on-disk caches, null when caching is off. */
  readonly cacheDir: string | null;

  constructor(
    readonly runtime: PackageModuleRuntime,
    cacheDir: string | null,
  ) {
    this.cacheDir = cacheDir;
  }

  static create(options: HandlerLoaderOptions = {}): HandlerLoader {
    const cacheDir = resolveCacheDir(options.cacheDir);
    const runtime = new PackageModuleRuntime({
      sdkEntry: options.sdkEntry,
      transpileCacheDir: cacheSubdir(cacheDir, 'jiti'),
      transpiler: options.transpiler,
      precompiledDir: options.precompiledDir,
    });
    return new HandlerLoader(runtime, cacheDir);
  }

  /** The SDK module exactly as packages see it (same classes), e.g. to raise its errors inside a sandbox. */
  get packageSdk(): Record<string, unknown> {
    return this.runtime.sdk as unknown as Record<string, unknown>;
  }

  /**
   * The handler class of a package whose definition is known: evaluated afresh, checked to be the single
   * SkillBase subclass using the schemas the definition names. Throws the SDK's SkillLoadError otherwise.
   */
  async loadHandlerClass(dir: string, definition: HandlerDefinition): Promise<SkillHandlerClass> {
    const packagePath = realPathOf(dir);
    const issues = new IssueList();
    const scope = this.runtime.openScope();
    const schemaExports = this.importModule(scope, packagePath, 'schema.ts', 'schema', issues);
    const handlerExports = this.importModule(scope, packagePath, 'handler.ts', 'handler', issues);
    const found = handlerExports ? pickHandlerClass(handlerExports, this.runtime.sdk, issues) : null;
    if (found && schemaExports) {
      for (const role of ['input', 'output'] as const) {
        const exportName = exportNameOf(definition[`${role}_schema`]);
        const expected: ResolvedSchema = { exportName, schema: schemaExports[exportName], jsonSchema: null };
        if (expected.schema === undefined)
          issues.error(
            'schema',
            'definition.json',
            `/${role}_schema`,
            `schema.ts has no export '${exportName}'`,
            'Load the package to see its issues.',
          );
        else checkHandlerSchemas(found, role, expected, schemaExports, issues);
      }
    }
    const errors = issues.items.filter((issue) => issue.severity === 'error');
    if (!found || errors.length > 0) {
      // The packages' copy of the SDK, so this module does not load a second one.
      const SkillLoadError = this.packageSdk.SkillLoadError as SkillLoadErrorClass;
      throw new SkillLoadError(definition.name, errors.map((issue) => `${issue.file}: ${issue.message}`).join('; '), packagePath);
    }
    return found.handlerClass;
  }

  /** Evaluate one package file in `scope`; a failure becomes an issue (with the package's own positions), not an exception. */
  importModule(
    scope: ModuleScope,
    packagePath: string,
    file: string,
    category: 'schema' | 'handler',
    issues: IssueList,
  ): Record<string, unknown> | null {
    try {
      return scope(join(packagePath, file));
    } catch (error) {
      issues.error(
        category,
        file,
        '',
        `${file} failed to load: ${describeLoadError(error, packagePath, this.runtime.mapPosition)}`,
        `Fix the error in ${file} (run "npx tsc --noEmit" for type errors; the loader does not type-check).`,
      );
      return null;
    }
  }
}

/** The real path of a package directory (symlinks resolved), or the path itself when it cannot be resolved. */
export function realPathOf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}
