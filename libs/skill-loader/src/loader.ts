import type { SkillHandlerClass } from '@skill-registry/sdk';
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { checkDefinition, isStrictSemver, SKILL_NAME_PATTERN, type SkillDefinition } from './definition.js';
import { checkTwinFixtureFiles } from './example-twin.js';
import { ExampleValidator } from './examples-check.js';
import { inspectPackageCode, type CodeFiles, type CodeInspection, type CodeInspector, type SchemaReferences } from './code-inspection.js';
import { HandlerLoader, realPathOf, type HandlerDefinition } from './handler-loader.js';
import { IssueList, type ValidationIssue } from './issues.js';
import { parseJsonText } from './json-file.js';
import { describeLoadError } from './load-error.js';
import { cacheSubdir } from './cache-dir.js';
import type { PackageModuleRuntime } from './module-runtime.js';
import { EMPTY_PACKAGE_HASH, hashSkillPackageSync } from './package-files.js';
import { checkSkillEntry, checkSkillMarkdown } from './skill-md.js';
import { UNSAFE_PATTERN_HINT, unsafePatternMessage, unsafePatterns } from '#contracts/schema-pattern.js';

/** A skill package as read from disk: what could be loaded, and every issue found. */
export interface LoadedSkillPackage {
  /** Absolute real path of the package directory. */
  packagePath: string;
  /** Best effort even when broken: the definition's name and version when valid, else the directory name and `0.0.0-draft`. */
  identity: { name: string; version: string };
  /** definition.json with defaults applied; null when it is missing, malformed or has any invalid field. */
  definition: SkillDefinition | null;
  /** JSON Schema 2020-12 of the input schema (io `input`), null if it could not be derived. */
  inputJsonSchema: Record<string, unknown> | null;
  /** JSON Schema 2020-12 of the output schema (io `output`), null if it could not be derived. */
  outputJsonSchema: Record<string, unknown> | null;
  /** `sha256:<hex>` over the package's files (see hashSkillPackage). */
  contentHash: string;
  issues: ValidationIssue[];
  /** No issue with severity `error`. */
  valid: boolean;
}

/** Options of SkillPackageLoader. */
export interface SkillPackageLoaderOptions {
  /** File that `@skill-registry/sdk` resolves to inside packages (default: what the loader itself resolves). */
  sdkEntry?: string;
  /**
   * Directory of the on-disk caches that make repeated starts fast (transpiled TypeScript, compiled example
   * validators); `false` disables them. Default: node_modules/.cache/skill-loader/v1, else the OS temp dir.
   */
  cacheDir?: string | false;
  /**
   * 'swc' (default, fast) or 'babel' (jiti's own). Worker threads that may be terminated must use
   * 'babel': a native addon loaded in a thread that is later terminated can crash the whole process.
   */
  transpiler?: 'swc' | 'babel';
  /**
   * Where the package's own code (schema.ts, handler.ts) is evaluated: by default in this process, which is
   * right for an author's own packages only. The registry passes a sandboxed inspector (untrusted packages).
   */
  codeInspector?: CodeInspector;
}

/** The files of the package contract, and whether lacking one is an error. */
const CONTRACT_FILES: { file: string; severity: 'error' | 'warning'; purpose: string }[] = [
  { file: 'definition.json', severity: 'error', purpose: 'the skill metadata (name, version, schemas, tools, ...)' },
  { file: 'SKILL.md', severity: 'error', purpose: 'the documentation, with name and description front matter' },
  { file: 'schema.ts', severity: 'error', purpose: 'the zod input and output schemas' },
  { file: 'handler.ts', severity: 'error', purpose: 'the class extending SkillBase' },
  { file: 'handler.spec.ts', severity: 'warning', purpose: "the skill's own tests" },
];

const DRAFT_VERSION = '0.0.0-draft';

/**
 * Loads and validates skill packages, fail-soft: a broken package yields issues, never an exception, and
 * never affects another package. TypeScript is evaluated in-process through jiti (see PackageModuleRuntime).
 */
export class SkillPackageLoader {
  /** The file `@skill-registry/sdk` resolves to inside packages. */
  readonly sdkEntry: string;
  /** The file `@skill-registry/sdk/testing` resolves to (null when the SDK has none), for packages' own specs. */
  readonly sdkTestingEntry: string | null;
  /** Directory of the on-disk caches, null when caching is off. */
  readonly cacheDir: string | null;
  private readonly runtime: PackageModuleRuntime;
  private readonly handlers: HandlerLoader;
  private readonly examples: ExampleValidator;
  private readonly codeInspector: CodeInspector | null;

  /** Throws when the SDK cannot be loaded: that is a broken installation, not a broken package. */
  constructor(options: SkillPackageLoaderOptions = {}) {
    this.handlers = HandlerLoader.create(options);
    this.cacheDir = this.handlers.cacheDir;
    this.runtime = this.handlers.runtime;
    this.examples = new ExampleValidator(cacheSubdir(this.cacheDir, 'ajv'));
    this.sdkEntry = this.runtime.sdkEntry;
    this.sdkTestingEntry = this.runtime.sdkTestingEntry;
    this.codeInspector = options.codeInspector ?? null;
  }

  /** The SDK module exactly as packages see it (same classes), e.g. to raise its errors inside a sandbox. */
  get packageSdk(): Record<string, unknown> {
    return this.handlers.packageSdk;
  }

  /**
   * Read and check the package in `dir`. `contentHash`: the package's hash when the caller already has it
   * (it wrote `dir` from bytes it hashed), so that the files are not read again to work it out.
   */
  async load(dir: string, contentHash?: string): Promise<LoadedSkillPackage> {
    // Loading is synchronous work: yield first so a server's event loop gets a turn between packages.
    await yieldToEventLoop();
    const packagePath = realPathOf(dir);
    const issues = new IssueList();
    const result: LoadedSkillPackage = {
      packagePath,
      identity: { name: basename(packagePath), version: DRAFT_VERSION },
      definition: null,
      inputJsonSchema: null,
      outputJsonSchema: null,
      contentHash: EMPTY_PACKAGE_HASH,
      issues: issues.items,
      valid: false,
    };
    if (!isDirectory(packagePath)) {
      issues.error(
        'files',
        '',
        '',
        `${packagePath} is not a directory`,
        'Pass the directory of a skill package (<root>/<domain>/<skill_name>).',
      );
      return result;
    }
    try {
      await this.check(packagePath, result, issues);
    } catch (error) {
      // Checks catch what packages throw; this is the last guard that keeps load() from ever throwing.
      issues.error(
        'files',
        '',
        '',
        `the package could not be checked: ${describeLoadError(error, packagePath, this.runtime.mapPosition)}`,
        'Check that the package files are readable.',
      );
    }
    try {
      result.contentHash = contentHash ?? hashSkillPackageSync(packagePath);
    } catch {
      // Unreadable files were reported by the checks.
    }
    result.valid = !issues.hasErrors;
    return result;
  }

  /** HandlerLoader.loadHandlerClass, on this loader's runtime. */
  loadHandlerClass(dir: string, definition: HandlerDefinition): Promise<SkillHandlerClass> {
    return this.handlers.loadHandlerClass(dir, definition);
  }

  /**
   * The code part of the check (see inspectPackageCode), through the inspector given, else in this process. A
   * failing inspector (a sandbox that timed out or crashed) is a finding about the package, never an exception.
   */
  private async inspectCode(packagePath: string, fields: Partial<SkillDefinition>, files: CodeFiles): Promise<CodeInspection> {
    const references: SchemaReferences = {};
    if (fields.input_schema !== undefined) references.input_schema = fields.input_schema;
    if (fields.output_schema !== undefined) references.output_schema = fields.output_schema;
    if (!files.schema && !files.handler) return { inputJsonSchema: null, outputJsonSchema: null, issues: [] };
    if (!this.codeInspector) return inspectPackageCode(this.handlers, packagePath, references, files);
    try {
      return await this.codeInspector(packagePath, references, files);
    } catch (error) {
      const issue: ValidationIssue = {
        severity: 'error',
        category: 'handler',
        file: files.schema ? 'schema.ts' : 'handler.ts',
        path: '',
        message: `the package's code could not be inspected: ${(error as Error).message}`,
        hint: 'Make schema.ts and handler.ts load quickly and without side effects: they are evaluated in a sandbox with no network, no environment and bounded time and memory.',
      };
      return { inputJsonSchema: null, outputJsonSchema: null, issues: [issue] };
    }
  }

  private async check(packagePath: string, result: LoadedSkillPackage, issues: IssueList): Promise<void> {
    const present = this.checkFiles(packagePath, issues);
    const directoryName = basename(packagePath);

    let fields: Partial<SkillDefinition> = {};
    if (present.has('definition.json')) {
      const parsed = parseJsonText(readFileSync(join(packagePath, 'definition.json'), 'utf8'));
      if (parsed.ok) {
        const checked = checkDefinition(parsed.value, directoryName, issues);
        result.definition = checked.definition;
        fields = checked.validFields;
        result.identity = identityOf(parsed.value, directoryName);
      } else {
        const where = parsed.line === null ? '' : ` at line ${parsed.line}, column ${parsed.column}`;
        issues.error(
          'json',
          'definition.json',
          '',
          `definition.json is not valid JSON${where}: ${parsed.message}`,
          'Fix the JSON syntax (no trailing commas, no comments, double-quoted keys and strings).',
        );
      }
    }
    if (present.has('SKILL.md')) {
      const markdown = readFileSync(join(packagePath, 'SKILL.md'), 'utf8');
      checkSkillMarkdown(markdown, fields.name ?? result.identity.name, issues);
      await checkSkillEntry(markdown, issues);
    }

    const inspection = await this.inspectCode(packagePath, fields, {
      schema: present.has('schema.ts'),
      handler: present.has('handler.ts'),
    });
    issues.items.push(...inspection.issues);
    result.inputJsonSchema = inspection.inputJsonSchema;
    result.outputJsonSchema = inspection.outputJsonSchema;
    for (const [role, jsonSchema] of [
      ['input', result.inputJsonSchema],
      ['output', result.outputJsonSchema],
    ] as const) {
      for (const unsafe of await unsafePatterns(jsonSchema))
        issues.error('schema', 'schema.ts', unsafe.pointer, unsafePatternMessage(role, unsafe), UNSAFE_PATTERN_HINT);
    }

    if (fields.examples !== undefined) {
      if (fields.examples.length === 0) {
        issues.warning(
          'examples',
          'definition.json',
          '/examples',
          'no examples are declared',
          'Add at least one { "input": {...}, "output": {...} } example: promotion to ACTIVE runs the declared examples.',
        );
      }
      this.examples.check(fields.examples, { input: result.inputJsonSchema, output: result.outputJsonSchema }, issues);
      checkTwinFixtureFiles(fields.examples, packagePath, issues);
    }
  }

  private checkFiles(packagePath: string, issues: IssueList): Set<string> {
    const present = new Set<string>();
    for (const { file, severity, purpose } of CONTRACT_FILES) {
      const info = statSync(join(packagePath, file), { throwIfNoEntry: false });
      if (info?.isFile()) {
        present.add(file);
        continue;
      }
      const message = info ? `${file} is not a regular file` : `${file} is missing`;
      const hint = `Add ${file}: ${purpose}.`;
      if (severity === 'error') issues.error('files', file, '', message, hint);
      else issues.warning('files', file, '', message, hint);
    }
    return present;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function identityOf(raw: unknown, directoryName: string): { name: string; version: string } {
  const record = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const name = typeof record.name === 'string' && SKILL_NAME_PATTERN.test(record.name) ? record.name : directoryName;
  const version = typeof record.version === 'string' && isStrictSemver(record.version) ? record.version : DRAFT_VERSION;
  return { name, version };
}
