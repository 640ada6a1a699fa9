import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFakeTwin, type FakeTwin, type McpBridge, type WorkProductContent } from '@skill-registry/sdk';
import { JsonSchemaValidator, outputMatchesExample } from '#contracts/index.js';
import { McpBridgeClient, NO_TOOLS_BRIDGE, missingTools, parseToolAdapters, silentLogger } from '#mcp-bridge/index.js';
import { manifestHash, manifestOf, readPackageDir, writePackageFiles } from '#package-store/index.js';
import {
  SkillPackageLoader,
  formatPackageReport,
  resolveExampleTwin,
  type LoadedSkillPackage,
  type PackageFileSource,
  type SkillExample,
} from '#skill-loader/index.js';
import {
  HandlerLauncher,
  HandlerSandboxPool,
  handlerProcessLimits,
  sandboxPoolOptions,
  sandboxSettingsFrom,
  type TwinCallHandler,
} from '#handler-sandbox/index.js';
import { ScriptSandbox, isolationFromEnvironment } from '#script-sandbox/index.js';
import { type Output, loadEitherFormat } from './commands.js';

export interface PackageTestOptions {
  /** Run the package's own `*.spec.ts` tests (default true). */
  unit: boolean;
  /** Run the declared examples through the executor's sandbox (default true). */
  examples: boolean;
  /** `adapter=url,…` of running tool adapters (default: $TOOL_ADAPTERS); without them tool-backed examples cannot run. */
  toolAdapters?: string;
}

interface ExampleResult {
  index: number;
  description: string | null;
  outcome: 'passed' | 'failed' | 'not_run';
  reason: string | null;
  duration_ms: number;
}

interface UnitResult {
  passed: boolean;
  tests: { passed: number; failed: number; total: number };
  output: string;
}

const require = createRequire(import.meta.url);

/**
 * `test <dir>`: validates the package, runs its own tests with Jest, and runs each declared example
 * locally through the executor's sandbox on a copy of exactly the bytes `pack` would publish, judged as
 * promotion judges them (input and output against the schemas, output equal to the declared one).
 * Exit 0 only when everything ran and passed.
 */
export async function testPackage(dir: string, options: PackageTestOptions, out: Output, json: boolean): Promise<number> {
  const packageDir = path.resolve(dir);
  const either = await loadEitherFormat(packageDir);
  if (either.agentSkill) return testAgentSkill(packageDir, either, options, out, json);
  const loaded = await new SkillPackageLoader({ cacheDir: false }).load(packageDir);
  if (!loaded.valid || !loaded.definition) {
    if (json) out.json({ name: loaded.identity.name, valid: false, issues: loaded.issues, unit: null, examples: [] });
    else out.line(formatPackageReport(loaded));
    return 1;
  }
  const unit = options.unit ? await runUnitTests(packageDir) : null;
  const examples = options.examples ? await runExamples(packageDir, loaded, options.toolAdapters ?? process.env.TOOL_ADAPTERS ?? '') : [];
  const ok = (unit?.passed ?? true) && examples.every((example) => example.outcome === 'passed');
  if (json) {
    out.json({
      name: loaded.identity.name,
      version: loaded.identity.version,
      valid: true,
      passed: ok,
      unit: unit && { passed: unit.passed, tests: unit.tests },
      examples,
    });
  } else printReport(loaded, unit, examples, out);
  return ok ? 0 : 1;
}

function printReport(loaded: LoadedSkillPackage, unit: UnitResult | null, examples: ExampleResult[], out: Output): void {
  out.line(`${loaded.identity.name} ${loaded.identity.version}: package valid`);
  if (unit) {
    out.line(`own tests: ${unit.tests.passed}/${unit.tests.total} passed${unit.passed ? '' : ' — FAILED'}`);
    if (!unit.passed) out.line(unit.output.trimEnd());
  }
  for (const example of examples) {
    const label = `example ${example.index}${example.description ? ` (${example.description})` : ''}`;
    out.line(`${label}: ${example.outcome.replace('_', ' ')}${example.reason ? ` — ${example.reason}` : ''} [${example.duration_ms} ms]`);
  }
}

/** The package's own tests, with the same transform and SDK mapping as this repository's suite. */
async function runUnitTests(packageDir: string): Promise<UnitResult> {
  const work = await mkdtemp(path.join(tmpdir(), 'skill-test-'));
  try {
    const resultFile = path.join(work, 'result.json');
    const { sdkEntry, sdkTestingEntry } = new SkillPackageLoader({ cacheDir: false });
    const config = {
      rootDir: packageDir,
      testEnvironment: 'node',
      extensionsToTreatAsEsm: ['.ts'],
      transform: {
        '^.+\\.ts$': [
          require.resolve('@swc/jest'),
          { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'es6' } },
        ],
      },
      moduleNameMapper: {
        '^@skill-registry/sdk$': sdkEntry,
        ...(sdkTestingEntry ? { '^@skill-registry/sdk/testing$': sdkTestingEntry } : {}),
        '^(\\.{1,2}/.*)\\.js$': '$1',
      },
      testMatch: ['<rootDir>/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/'],
      cacheDirectory: path.join(work, 'cache'),
    };
    const jestBin = path.join(path.dirname(require.resolve('jest/package.json')), 'bin/jest.js');
    const args = [jestBin, '--config', JSON.stringify(config), '--ci', '--watchman=false', '--json', '--outputFile', resultFile];
    const output = await new Promise<{ code: number; text: string }>((resolve) => {
      const child = spawn(process.execPath, args, {
        env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules --no-warnings=ExperimentalWarning' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (chunk) => (text += chunk));
      child.stderr.on('data', (chunk) => (text += chunk));
      child.on('close', (code) => resolve({ code: code ?? 1, text }));
    });
    const report = JSON.parse(await readFile(resultFile, 'utf8').catch(() => '{}')) as {
      numPassedTests?: number;
      numFailedTests?: number;
      numTotalTests?: number;
    };
    const tests = { passed: report.numPassedTests ?? 0, failed: report.numFailedTests ?? 0, total: report.numTotalTests ?? 0 };
    return {
      passed: output.code === 0 && tests.total > 0,
      tests,
      output: tests.total === 0 ? `no tests found\n${output.text}` : output.text,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Each declared example through the executor's sandbox, on a private copy of the package's stored bytes. */
async function runExamples(packageDir: string, loaded: LoadedSkillPackage, toolAdapters: string): Promise<ExampleResult[]> {
  const definition = loaded.definition as NonNullable<LoadedSkillPackage['definition']>;
  const work = await mkdtemp(path.join(tmpdir(), 'skill-examples-'));
  const adapters = parseToolAdapters(toolAdapters);
  const bridge: McpBridge & { close?: () => Promise<void> } =
    adapters.size > 0 ? new McpBridgeClient({ adapters, logger: silentLogger }) : NO_TOOLS_BRIDGE;
  // The executor's own sandbox: a bubblewrap process with nothing but the package (HANDLER_SANDBOX=none opts out).
  const settings = sandboxSettingsFrom({ HANDLER_SANDBOX: process.env.HANDLER_SANDBOX }, 1);
  const sandbox = new HandlerSandboxPool(
    new HandlerLauncher({
      isolation: settings.HANDLER_SANDBOX,
      maxFrameBytes: settings.SANDBOX_MAX_MESSAGE_MB * 1024 * 1024,
      limits: handlerProcessLimits(settings),
    }),
    sandboxPoolOptions(settings),
  );
  const validator = new JsonSchemaValidator();
  try {
    const files = await readPackageDir(packageDir);
    const copy = path.join(work, 'package');
    await writePackageFiles(copy, files);
    // The sandbox user (nobody) reads the copy.
    await chmod(work, 0o755);
    const contentHash = manifestHash(manifestOf(files));
    const missing = await missingTools(bridge, definition.tools_required);
    const results: ExampleResult[] = [];
    for (const [index, example] of definition.examples.entries()) {
      const started = Date.now();
      const result = (outcome: ExampleResult['outcome'], reason: string | null): ExampleResult => ({
        index,
        description: (example as { description?: string }).description ?? null,
        outcome,
        reason,
        duration_ms: Date.now() - started,
      });
      const inputViolations = loaded.inputJsonSchema ? validator.validate(loaded.inputJsonSchema, example.input) : [];
      if (inputViolations.length) {
        results.push(result('failed', `input does not match the input schema: ${describe(inputViolations)}`));
        continue;
      }
      if (missing.length) {
        results.push(result('not_run', `required tools unavailable: ${missing.join(', ')} (start the adapters and pass --tool-adapters)`));
        continue;
      }
      const executionId = randomUUID();
      const twin = await fixtureTwinFor(example, new Map(files.map((file) => [file.path, file.bytes])), executionId);
      const outcome = await sandbox.run(
        {
          executionId,
          sessionId: null,
          branch: 'main',
          packagePath: copy,
          contentHash,
          skillName: definition.name,
          inputSchemaRef: definition.input_schema,
          outputSchemaRef: definition.output_schema,
          input: example.input as Record<string, unknown>,
        },
        {
          timeoutMs: definition.timeout_seconds * 1000,
          signal: new AbortController().signal,
          bridge,
          declaredTools: definition.tools_required.map((tool) => tool.tool_id),
          twin: serveFakeTwin(twin),
        },
      );
      if (!outcome.ok) {
        results.push(result('failed', `${outcome.error.code}: ${outcome.error.message}`));
        continue;
      }
      const failure = judgeOutput(validator, loaded.outputJsonSchema, outcome.output, example.output);
      results.push(result(failure ? 'failed' : 'passed', failure));
    }
    return results;
  } finally {
    await sandbox.close();
    await bridge.close?.();
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The twin an example runs against: a fake twin holding the example's `twin` fixtures on `main` (the branch
 * examples run on here), their bytes taken from the package's files; writes are the execution's.
 */
async function fixtureTwinFor(example: SkillExample, files: PackageFileSource, executionId?: string): Promise<FakeTwin> {
  return createFakeTwin({ executionId, workProducts: await resolveExampleTwin(example, files) });
}

/** The sandbox's twin calls answered by a fake twin, as the executor answers them from the platform's. */
function serveFakeTwin(twin: FakeTwin): TwinCallHandler {
  return async (op, args) => {
    try {
      const value: unknown = await (twin[op] as (...callArgs: unknown[]) => Promise<unknown>)(...args);
      // Content crosses to the sandbox as data; the sandbox adds text() again.
      if (op === 'readContent') {
        const { bytes, mediaType, revision, contentHash } = value as WorkProductContent;
        return { ok: true, value: { bytes, mediaType, revision, contentHash } };
      }
      return { ok: true, value };
    } catch (error) {
      const typed = error as { code?: string; message?: string; details?: Record<string, unknown> };
      const code = typed.code === 'PRECONDITION_FAILED' ? 'PRECONDITION_FAILED' : 'HANDLER_ERROR';
      return { ok: false, error: { code, message: typed.message ?? String(error), details: typed.details ?? { reason: 'INVALID' } } };
    }
  };
}

/** Why an example's output fails as promotion would judge it (the schema, then the declared output), or null. */
function judgeOutput(
  validator: JsonSchemaValidator,
  outputSchema: Record<string, unknown> | null,
  output: Record<string, unknown>,
  declared: unknown,
): string | null {
  const violations = outputSchema ? validator.validate(outputSchema, output) : [];
  if (violations.length) return `output does not match the output schema: ${describe(violations)}`;
  if (declared !== undefined && !outputMatchesExample(output, declared))
    return `output differs from the declared output: got ${JSON.stringify(output)}`;
  return null;
}

function describe(violations: { pointer: string; message: string }[]): string {
  return violations.map((violation) => `${violation.pointer || '/'} ${violation.message}`).join('; ');
}

/**
 * An Agent Skills package: its report, then every executable tool's examples run in the script
 * sandbox the executor uses (bubblewrap unless SCRIPT_SANDBOX=none), judged as promotion judges them.
 * Such packages carry no Jest tests of their own.
 */
async function testAgentSkill(
  packageDir: string,
  loaded: Awaited<ReturnType<typeof loadEitherFormat>>,
  options: PackageTestOptions,
  out: Output,
  json: boolean,
): Promise<number> {
  const pkg = loaded.agentSkill as NonNullable<typeof loaded.agentSkill>;
  if (!loaded.valid) {
    if (json) out.json({ name: loaded.identity.name, valid: false, issues: loaded.issues, unit: null, examples: [] });
    else out.line(formatPackageReport(loaded));
    return 1;
  }
  const results: (ExampleResult & { tool: string })[] = [];
  if (options.examples) {
    const sandbox = new ScriptSandbox({ isolation: isolationFromEnvironment(process.env) });
    const validator = new JsonSchemaValidator();
    const work = await mkdtemp(path.join(tmpdir(), 'skill-examples-'));
    try {
      // The sandbox runs scripts as uid 65534: the copy must be readable by it, as the executor's cache is.
      await chmod(work, 0o755);
      const copy = path.join(work, 'package');
      await writePackageFiles(copy, await readPackageDir(packageDir));
      for (const tool of pkg.tools) {
        if (tool.script && tool.examples.length === 0) {
          results.push({
            tool: tool.name,
            index: 0,
            description: null,
            outcome: 'not_run',
            reason: 'the tool declares no examples (promotion needs them, or force)',
            duration_ms: 0,
          });
        }
        for (const [index, example] of tool.examples.entries()) {
          const started = Date.now();
          const result = (outcome: ExampleResult['outcome'], reason: string | null) => ({
            tool: tool.name,
            index,
            description: example.description ?? null,
            outcome,
            reason,
            duration_ms: Date.now() - started,
          });
          if (!tool.script) {
            results.push(result('not_run', tool.notExecutableReason ?? 'the tool has no script'));
            continue;
          }
          const outcome = await sandbox.run({
            packageDir: copy,
            script: tool.script.path,
            input: example.input,
            timeoutMs: tool.timeoutSeconds * 1000,
          });
          if (!outcome.ok) {
            results.push(result('failed', `${outcome.error.code}: ${outcome.error.message}`));
            continue;
          }
          const failure = judgeOutput(validator, tool.outputSchema, outcome.output, example.output);
          results.push(result(failure ? 'failed' : 'passed', failure));
        }
      }
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const ok = results.every((example) => example.outcome === 'passed');
  if (json)
    out.json({ name: loaded.identity.name, version: loaded.identity.version, valid: true, passed: ok, unit: null, examples: results });
  else {
    out.line(
      `${loaded.identity.name} ${loaded.identity.version}: Agent Skills package valid (${pkg.tools.length} tools; no Jest tests of its own)`,
    );
    for (const example of results) {
      out.line(
        `${example.tool} example ${example.index}: ${example.outcome.replace('_', ' ')}${example.reason ? ` — ${example.reason}` : ''} [${example.duration_ms} ms]`,
      );
    }
  }
  return ok ? 0 : 1;
}
