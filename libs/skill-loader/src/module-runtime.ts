import type { SkillHandlerClass } from '@skill-registry/sdk';
import { createJiti, type Jiti, type JitiOptions, type ModuleCache } from 'jiti';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire, SourceMap } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';

/** The SDK functions the loader needs, taken from the SDK copy that skill packages themselves get. */
export interface RuntimeSdk {
  toJsonSchema(schema: unknown, io: 'input' | 'output'): Record<string, unknown>;
  findUndescribedProperties(jsonSchema: unknown): string[];
  isSkillHandlerClass(value: unknown): value is SkillHandlerClass;
  /** The SDK's own base class (it carries the handler brand too, so it must be told apart). */
  SkillBase: unknown;
}

/** Options of the TypeScript runtime that evaluates skill packages. */
export interface ModuleRuntimeOptions {
  /** File that `@skill-registry/sdk` resolves to inside packages (default: what this module resolves it to). */
  sdkEntry?: string;
  /** Directory where jiti keeps transpiled files across runs; null for none. */
  transpileCacheDir?: string | null;
  /** 'swc' (default) or 'babel' (jiti's own); see SkillPackageLoaderOptions.transpiler. */
  transpiler?: 'swc' | 'babel';
  /**
   * Directory of JavaScript transpiled ahead of time (see precompileRuntime, precompilePackage): a file
   * found there is used as is, so a sandbox never loads a compiler for it; others are transpiled as usual.
   */
  precompiledDir?: string | null;
  /** Also write everything this runtime compiles into this directory (a trusted process preparing a sandbox's precompiledDir). */
  recordTo?: string;
}

/** Maps a position in transpiled code (1-based) back to the package's own source; null when unknown. */
export type PositionMapper = (file: string, line: number, column: number) => { line: number; column: number } | null;

/** Loads a module of a package by absolute path; every scope is a fresh module graph sharing one SDK. */
export type ModuleScope = (absolutePath: string) => Record<string, unknown>;

type JitiTransform = NonNullable<JitiOptions['transform']>;

/**
 * TypeScript → CommonJS with SWC (an order of magnitude faster than jiti's bundled Babel, which
 * dominated cold start-up with many packages). Falls back to Babel when @swc/core is unavailable.
 */
interface Swc {
  transformSync(source: string, options: Record<string, unknown>): { code: string; map?: string };
}

function loadSwc(): Swc | null {
  try {
    return createRequire(import.meta.url)('@swc/core') as Swc;
  } catch {
    return null;
  }
}

function swcOptions(filename: string | undefined, sourceMaps: boolean): Record<string, unknown> {
  const typescript = /\.[cm]?tsx?$/.test(filename ?? '');
  return {
    filename,
    sourceMaps,
    swcrc: false,
    configFile: false,
    jsc: { parser: typescript ? { syntax: 'typescript' } : { syntax: 'ecmascript' }, target: 'es2022' },
    module: { type: 'commonjs', importInterop: 'swc' },
  };
}

/**
 * TypeScript → CommonJS with SWC (an order of magnitude faster than jiti's bundled Babel, which
 * dominated cold start-up with many packages).
 */
function swcTransform(swc: Swc): JitiTransform {
  return (options) => {
    try {
      const forceTs = options.ts && !/\.[cm]?tsx?$/.test(options.filename ?? '') ? `${options.filename ?? 'module'}.ts` : options.filename;
      return { code: swc.transformSync(options.source, swcOptions(forceTs, false)).code };
    } catch (error) {
      // Like jiti's Babel path: the module throws the syntax error when evaluated, so the loader reports it.
      return { code: `throw new SyntaxError(${JSON.stringify(describeSwcError(error, options.filename))});`, error };
    }
  };
}

/** Re-transpiles the file with a source map (only when an error needs locating) and maps the position back. */
function swcPositionMapper(swc: Swc): PositionMapper {
  return (file, line, column) => {
    try {
      const { map } = swc.transformSync(readFileSync(file, 'utf8'), swcOptions(file, true));
      if (!map) return null;
      const entry = new SourceMap(JSON.parse(map)).findEntry(line - 1, column - 1) as { originalLine?: number; originalColumn?: number };
      if (entry.originalLine === undefined || entry.originalColumn === undefined) return null;
      return { line: entry.originalLine + 1, column: entry.originalColumn + 1 };
    } catch {
      return null;
    }
  };
}

/** "Unexpected token `:` … (handler.ts:2:10)" from SWC's multi-line diagnostic. */
function describeSwcError(error: unknown, filename: string | undefined): string {
  const text = String((error as Error)?.message ?? error);
  const lines = text.split('\n');
  const message =
    lines
      .find((line) => /^\s*x /.test(line))
      ?.replace(/^\s*x /, '')
      .trim() ??
    lines[0]?.trim() ??
    'syntax error';
  const location = /,-\[(.+):(\d+):(\d+)\]/.exec(text);
  if (!location) return message;
  const [, file, line] = location;
  // The caret line (" :   ^") points at the column within the quoted source line ("  2 | code").
  const sourceLine = lines.find((candidate) => new RegExp(`^\\s*${line} \\|`).test(candidate));
  const caretLine = lines.find((candidate) => /^\s*:\s*\^/.test(candidate));
  const column = sourceLine && caretLine ? caretLine.indexOf('^') - (sourceLine.indexOf('|') + 2) + 1 : Number(location[3]);
  return `${message} (${basename(file ?? filename ?? '')}:${line}:${column})`;
}

/**
 * A package's own tests (`*.spec.ts`, `*.test.ts`, `__tests__/`): run by Jest on the author's machine and by `skill-registry
 * test`, never loaded by a handler or an inspection, so not precompiled for a sandbox (they are 42% of the catalog's
 * TypeScript). One that package code does import anyway is transpiled by the sandbox itself.
 */
function isTestFile(path: string): boolean {
  return /(^|\/)__tests__\//.test(path) || /\.(spec|test)\.[cm]?[jt]sx?$/.test(path);
}

/** The file name of a precompiled module: the source's hash and whether jiti treats it as TypeScript. */
function precompiledName(source: string, ts: boolean | undefined): string {
  return `${createHash('sha256').update(source).digest('hex').slice(0, 40)}.${ts ? 'ts' : 'js'}.cjs`;
}

/**
 * Writes a precompiled module whole or not at all (a temporary name, then a rename): a sandbox may be loading
 * the same module for another package at this moment, and must never read it half-written.
 */
function writeAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

/** Positions in a module precompiled into `dir` (with its map beside it); others, Babel's, are the file's own. */
function precompiledPositionMapper(dir: string): PositionMapper {
  return (file, line, column) => {
    try {
      const source = readFileSync(file, 'utf8');
      const map = join(dir, `${precompiledName(source, /\.[cm]?tsx?$/.test(file))}.map`);
      if (!existsSync(map)) return { line, column };
      const entry = new SourceMap(JSON.parse(readFileSync(map, 'utf8'))).findEntry(line - 1, column - 1) as {
        originalLine?: number;
        originalColumn?: number;
      };
      if (entry.originalLine === undefined || entry.originalColumn === undefined) return null;
      return { line: entry.originalLine + 1, column: entry.originalColumn + 1 };
    } catch {
      return null;
    }
  };
}

/** Looks a module up in `dir` by its source; compiles the ones not there with `compile`, counting them in `missed`. */
function precompiledTransform(dir: string, compile: JitiTransform, missed: { count: number }): JitiTransform {
  return (options) => {
    const file = join(dir, precompiledName(options.source, options.ts));
    if (existsSync(file)) return { code: readFileSync(file, 'utf8') };
    missed.count++;
    return compile(options);
  };
}

/**
 * Transpiles with SWC (in a trusted process) into `dir`, for a runtime that finds them there: `record`
 * wraps a transform so that everything it compiles is also written out.
 */
function recordingTransform(dir: string, compile: JitiTransform): JitiTransform {
  return (options) => {
    const result = compile(options);
    if (!result.error) writeAtomically(join(dir, precompiledName(options.source, options.ts)), result.code);
    return result;
  };
}

/** Constant source of the scope entry module: one fs-cache entry serves every scope. */
const SCOPE_ENTRY_SOURCE = 'module.exports = function requireInScope(id) { return require(id); };';

/**
 * Evaluates skill packages' TypeScript in-process with jiti. Each `openScope()` starts a fresh module
 * graph (so an edited package is re-read), while the SDK and zod are evaluated once and shared, so every
 * package sees the same SkillBase brand and zod, wherever it lives on disk.
 */
export class PackageModuleRuntime {
  readonly sdkEntry: string;
  /** File `@skill-registry/sdk/testing` resolves to (the SDK's test helpers, for packages' own specs); null when absent. */
  readonly sdkTestingEntry: string | null;
  private loadedSdk: RuntimeSdk | null = null;
  /** Where a stack frame of transpiled package code really is in the package's file. */
  readonly mapPosition: PositionMapper;
  private readonly jiti: Jiti;
  private readonly compile: JitiTransform | null;
  private readonly swc: Swc | null;
  private readonly sharedModules: ModuleCache = {};
  private readonly scopeEntryFile: string;
  private readonly missed = { count: 0 };

  /**
   * Writes into `dir` every module a runtime needs before any package's own (the SDK, zod, the scope entry),
   * transpiled with SWC, so that a sandbox given `dir` as its precompiledDir transpiles none of them: without
   * them each sandbox process loaded jiti's Babel and transpiled the SDK at its start (~0.55 s of CPU here).
   */
  static precompileRuntime(dir: string): void {
    mkdirSync(dir, { recursive: true });
    const recorder = new PackageModuleRuntime({ transpiler: 'swc', recordTo: dir });
    void recorder.sdk;
    recorder.openScope();
  }

  /** Modules this runtime transpiled itself because its precompiledDir lacked them (0 without one). */
  get transpiledHere(): number {
    return this.missed.count;
  }

  constructor(options: ModuleRuntimeOptions = {}) {
    const localRequire = createRequire(import.meta.url);
    this.sdkEntry = options.sdkEntry ? resolve(options.sdkEntry) : localRequire.resolve('@skill-registry/sdk');
    if (!existsSync(this.sdkEntry)) {
      throw new Error(`@skill-registry/sdk entry ${this.sdkEntry} does not exist (run "npm run build:sdk")`);
    }
    this.sdkTestingEntry = testingEntryBeside(this.sdkEntry);
    this.scopeEntryFile = join(dirname(this.sdkEntry), '__skill_loader_scope__.cjs');
    const jitiOptions: JitiOptions = {
      alias: {
        ...zodAliases(this.sdkEntry),
        '@skill-registry/sdk': this.sdkEntry,
        // Without its own alias the subpath would become "<sdk entry file>/testing" (aliases match by prefix).
        ...(this.sdkTestingEntry ? { '@skill-registry/sdk/testing': this.sdkTestingEntry } : {}),
      },
      moduleCache: false,
      fsCache: options.transpileCacheDir ?? false,
      interopDefault: true,
    };
    const swc = options.transpiler === 'babel' ? null : loadSwc();
    this.swc = swc;
    const compile = (swc ? swcTransform(swc) : null) ?? createJiti(import.meta.url, { fsCache: false }).options.transform;
    const looked = compile && options.precompiledDir ? precompiledTransform(options.precompiledDir, compile, this.missed) : compile;
    const transform = looked && options.recordTo ? recordingTransform(options.recordTo, looked) : looked;
    this.compile = compile ?? null;
    // Babel keeps line numbers; SWC does not, so its positions are mapped back through a source map.
    // A precompiled file (SWC, ahead of time) is mapped through the source map written beside it.
    this.mapPosition = swc
      ? swcPositionMapper(swc)
      : options.precompiledDir
        ? precompiledPositionMapper(options.precompiledDir)
        : (_file, line, column) => ({ line, column });
    if (transform) jitiOptions.transform = (transformOptions) => rewriteTsImports(transform(transformOptions), transformOptions.filename);
    this.jiti = createJiti(import.meta.url, jitiOptions);
  }

  /**
   * The SDK's module as package code sees it, loaded on first use: a process that never evaluates package code
   * itself (the registry, whose inspector runs it in the sandbox) does not pay for it at start.
   */
  get sdk(): RuntimeSdk {
    this.loadedSdk ??= this.loadSdk();
    return this.loadedSdk;
  }

  /**
   * Transpiles every JavaScript and TypeScript file of a package into `dir` as precompiledName names
   * them, without evaluating any of it: a sandbox given `dir` as its precompiledDir needs no compiler.
   */
  precompilePackage(files: readonly { path: string; bytes: Uint8Array }[], packageDir: string, dir: string): number {
    if (!this.compile) return 0;
    let written = 0;
    for (const file of files) {
      if (!/\.[cm]?[jt]sx?$/.test(file.path) || /(^|\/)node_modules\//.test(file.path) || isTestFile(file.path)) continue;
      const source = Buffer.from(file.bytes).toString('utf8');
      const ts = /\.[cm]?tsx?$/.test(file.path);
      const filename = join(packageDir, file.path);
      const name = precompiledName(source, ts);
      // Named by its source: a file already there is this one (another package shares the source), and may be read right now.
      if (existsSync(join(dir, name))) {
        written++;
        continue;
      }
      if (this.swc) {
        // With its source map beside it, so that a sandbox reports positions in the package's own file.
        let out: { code: string; map?: string };
        try {
          out = this.swc.transformSync(source, swcOptions(filename, true));
        } catch {
          continue; // the sandbox compiles it itself and reports the error with its position
        }
        if (out.map) writeAtomically(join(dir, `${name}.map`), out.map);
        writeAtomically(join(dir, name), out.code);
        written++;
        continue;
      }
      const result = this.compile({ source, filename, ts });
      if (result.error) continue;
      writeAtomically(join(dir, name), result.code);
      written++;
    }
    return written;
  }

  /** A fresh module graph: modules loaded through it share instances with each other, not with other scopes. */
  openScope(): ModuleScope {
    const scopeModules = Object.create(this.sharedModules) as ModuleCache;
    const requireInScope = this.jiti.evalModule(SCOPE_ENTRY_SOURCE, {
      filename: this.scopeEntryFile,
      cache: scopeModules,
      async: false,
      forceTranspile: true,
    }) as (id: string) => unknown;
    return (absolutePath) => toModuleRecord(requireInScope(absolutePath));
  }

  private loadSdk(): RuntimeSdk {
    const requireShared = this.jiti.evalModule(SCOPE_ENTRY_SOURCE, {
      filename: this.scopeEntryFile,
      cache: this.sharedModules,
      async: false,
      forceTranspile: true,
    }) as (id: string) => unknown;
    let sdk: Record<string, unknown>;
    try {
      sdk = toModuleRecord(requireShared(this.sdkEntry));
    } catch (error) {
      throw new Error(`@skill-registry/sdk could not be loaded from ${this.sdkEntry}: ${String(error)}`, { cause: error });
    }
    for (const name of ['toJsonSchema', 'findUndescribedProperties', 'isSkillHandlerClass', 'SkillBase']) {
      if (typeof sdk[name] !== 'function') throw new Error(`@skill-registry/sdk at ${this.sdkEntry} does not export ${name}()`);
    }
    return sdk as unknown as RuntimeSdk;
  }
}

/** The SDK's testing module next to its entry, built (`testing.js`) or source (`testing.ts`) like the entry itself. */
function testingEntryBeside(sdkEntry: string): string | null {
  const match = /^index(\.[cm]?[jt]s)$/.exec(basename(sdkEntry));
  const candidate = match ? join(dirname(sdkEntry), `testing${match[1]}`) : null;
  return candidate !== null && existsSync(candidate) ? candidate : null;
}

function toModuleRecord(value: unknown): Record<string, unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function')
    ? (value as Record<string, unknown>)
    : { default: value };
}

/**
 * Packages import siblings NodeNext-style (`./schema.js` for schema.ts). Rewriting those specifiers once,
 * at transpile time (the result is cached), spares jiti a failing lookup per import per load, which
 * otherwise dominates load time.
 */
function rewriteTsImports(result: { code: string; error?: unknown }, filename: string | undefined): { code: string; error?: unknown } {
  if (!filename || result.error) return result;
  const dir = dirname(filename);
  const code = result.code.replace(
    /\b(require|jitiImport)\((["'])(\.\.?\/[^"'\n]*)\.js\2\)/g,
    (call, fn: string, quote: string, stem: string) => {
      if (existsSync(resolve(dir, `${stem}.js`)) || !existsSync(resolve(dir, `${stem}.ts`))) return call;
      return `${fn}(${quote}${stem}.ts${quote})`;
    },
  );
  return { ...result, code };
}

/**
 * Pin `zod` (and its subpaths) to the CommonJS files next to the SDK, so a package outside the repository
 * resolves zod at all, and every package shares the SDK's copy instead of transpiling the ESM build.
 */
function zodAliases(sdkEntry: string): Record<string, string> {
  const sdkRequire = createRequire(sdkEntry);
  const aliases: Record<string, string> = {};
  try {
    const manifest = JSON.parse(readFileSync(sdkRequire.resolve('zod/package.json'), 'utf8')) as { exports?: Record<string, unknown> };
    for (const subpath of Object.keys(manifest.exports ?? { '.': null })) {
      if (subpath.includes('*') || subpath.endsWith('.json')) continue;
      const specifier = subpath === '.' ? 'zod' : `zod/${subpath.slice(2)}`;
      try {
        aliases[specifier] = sdkRequire.resolve(specifier);
      } catch {
        // A subpath without a CommonJS entry: packages importing it fall back to normal resolution.
      }
    }
  } catch {
    // zod not resolvable from the SDK: leave resolution to jiti.
  }
  return aliases;
}
