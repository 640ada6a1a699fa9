import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import type { InspectionTrust } from '#handler-sandbox/index.js';
import { isAgentSkillsPackage, loadAgentSkillPackage, toRegistryName } from '#agent-skills/index.js';
import { type PackageFile, removeWrittenFiles, writePackageFiles } from '#package-store/index.js';
import { InvalidSchemaError } from '#schema-compat/index.js';
import { probeRuntimes } from '#script-sandbox/index.js';
import { SkillPackageLoader, type SkillDependency, type ValidationIssue } from '#skill-loader/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { NewSkillVersion } from '../catalog/skill-records.js';
import {
  type VersionCompatibility,
  compareVersions,
  compatibilityIssues,
  previousVersion,
} from '../compatibility/version-compatibility.js';
import { AdapterToolDirectory } from '../adapter-tools/adapter-tool-directory.js';
import { findCycle } from '../catalog/dependency-rules.js';
import { PackageInspection } from './package-inspection.js';
import { requiredToolIssues } from './required-tools-check.js';
import { runtimeIssues } from './runtime-check.js';
import { storableVersion } from './storable-text.js';
import { statusOf, versionFromAgentSkill, versionFromPackage } from './version-snapshot.js';

/**
 * Runs `load` on a private temporary copy `<workDir>/<domain>/<name>` of a package's bytes, however it
 * arrived (published archive or a directory under SKILL_PATHS), so the package is checked exactly as
 * executors will run it from the store — nothing outside its own files resolves, and what is validated
 * is what is stored. Messages name files relative to the package, never the temporary location. The
 * work directory is the package inspector's (its sandbox reads the copy) and goes afterwards.
 */
async function onPackageCopy<T extends { issues: ValidationIssue[] }>(
  workDir: string,
  files: PackageFile[],
  location: readonly [string, string],
  load: (dir: string) => Promise<T>,
): Promise<T> {
  const inWorkDir = files.map((file) => ({ ...file, path: `${location.join('/')}/${file.path}` }));
  try {
    const packageDir = join(workDir, ...location);
    await writePackageFiles(workDir, inWorkDir);
    const loaded = await load(packageDir);
    const scrub = (text: string) => text.replaceAll(`${workDir}/`, '').replaceAll(`${packageDir}/`, '').replaceAll(packageDir, '.');
    return { ...loaded, issues: loaded.issues.map((issue) => ({ ...issue, message: scrub(issue.message), hint: scrub(issue.hint) })) };
  } finally {
    await removeWrittenFiles(workDir, inWorkDir);
  }
}

/** A package as the intake validated it: its stored form, its report, and how it compares with the version before it. */
export interface IntakeResult {
  /** The stored form; DRAFT (with `validation` holding the errors) when invalid. `packagePath` is the copy's: callers set theirs. */
  snapshot: NewSkillVersion;
  issues: ValidationIssue[];
  valid: boolean;
  /** The name the package declares validly (for publisher scopes); null when it declares none. */
  declaredName: string | null;
  /** Against the highest non-DRAFT version below this one; null when there is none (or for Agent Skills packages). */
  compatibility: VersionCompatibility | null;
}

/**
 * The one intake of new package content, for discovery and publishing alike, for both package
 * formats (a `SKILL.md` without `definition.json` is an Agent Skills package): the format's own checks
 * of the package, then the registry's rules that need the catalog (dependency cycles; a breaking
 * schema change without a major bump). Their findings join the same validation report, so a disk
 * package with one is a DRAFT and a published one is refused with it.
 */
@Injectable()
export class PackageIntake {
  /**
   * One loader per trust (see InspectionTrust): each evaluates package code only through its sandboxed
   * inspector. No on-disk transpile cache: unchanged packages are never loaded again (content-hash fast path).
   */
  private readonly loaders: Record<InspectionTrust, SkillPackageLoader>;

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly adapterTools: AdapterToolDirectory,
    private readonly inspection: PackageInspection,
  ) {
    const loader = (trust: InspectionTrust) => new SkillPackageLoader({ cacheDir: false, codeInspector: inspection.inspectorFor(trust) });
    this.loaders = { disk: loader('disk'), published: loader('published') };
  }

  /**
   * `trust`: where the package comes from, the operator's disk or the API (see InspectionTrust); `contentHash`:
   * the files' manifest hash, which every caller has worked out already.
   */
  async validate(
    files: PackageFile[],
    contentHash: string,
    location: readonly [string, string],
    trust: InspectionTrust,
  ): Promise<IntakeResult> {
    const workDir = await this.inspection.copyDir(trust);
    const own = isAgentSkillsPackage(files.map((file) => file.path))
      ? await this.agentSkill(workDir, files, contentHash, location)
      : await this.typeScript(workDir, files, contentHash, location, trust);
    const file = own.snapshot.format === 'agent-skills' ? 'SKILL.md' : 'definition.json';
    // Text Postgres cannot hold: a finding each, and replaced, so that a DRAFT keeping the findings can be written.
    const { validation: _report, ...content } = own.snapshot;
    const storable = storableVersion(content, file);
    const findings = [
      ...storable.issues,
      ...this.dependencyRules(own.declaredName, own.snapshot.dependsOn, own.snapshot.format),
      ...own.compatibilityIssues,
      ...(await this.requiredTools(own.snapshot.toolsRequired.map((ref) => ref.tool_id))),
    ];
    const issues = [...own.issues, ...findings];
    const valid = own.valid && !findings.some((finding) => finding.severity === 'error');
    return {
      snapshot: {
        ...storable.version,
        // The report may quote the package's text (a loader's message): replaced the same way, never reported twice.
        validation: storableVersion({ issues }, file).version.issues,
        ...(own.valid ? statusOf(valid, issues) : {}),
      },
      issues,
      valid,
      declaredName: own.declaredName,
      compatibility: own.compatibility,
    };
  }

  private async typeScript(
    workDir: string,
    files: PackageFile[],
    contentHash: string,
    location: readonly [string, string],
    trust: InspectionTrust,
  ) {
    const loaded = await onPackageCopy(workDir, files, location, (dir) => this.loaders[trust].load(dir, contentHash));
    const compatibility = this.compatibility(loaded);
    return {
      snapshot: versionFromPackage(loaded),
      issues: loaded.issues,
      valid: loaded.valid && loaded.definition !== null,
      declaredName: loaded.definition?.name ?? null,
      compatibility: compatibility.report,
      compatibilityIssues: compatibility.issues,
    };
  }

  private async agentSkill(workDir: string, files: PackageFile[], contentHash: string, location: readonly [string, string]) {
    const result = await onPackageCopy(workDir, files, location, (dir) => loadAgentSkillPackage(dir));
    const declared = result.package && result.issues.every((issue) => !(issue.path === '/name' && issue.severity === 'error'));
    // Seed 004: runtimes are probed at registration (never a script of the package), their state stored with the version.
    const runtimes = result.package?.runtimes.length ? await probeRuntimes(result.package.runtimes) : [];
    const issues = [...result.issues, ...runtimeIssues(runtimes)];
    const snapshot = versionFromAgentSkill(
      result.package,
      toRegistryName(location[1]),
      result.valid,
      issues,
      contentHash,
      join(...location),
    );
    return {
      snapshot: { ...snapshot, runtimes, runtimesProbedAt: runtimes.length > 0 ? new Date() : null },
      issues,
      valid: result.valid && result.package !== null,
      declaredName: declared ? (result.package?.registryName ?? null) : null,
      compatibility: null,
      compatibilityIssues: result.valid && result.package ? this.toolCompatibility(result.package) : [],
    };
  }

  /**
   * The semver rule per tool of an Agent Skills package: against the highest non-DRAFT version below,
   * every executable tool must still be there, with schemas compatible under the same rule, unless the
   * bump allows breaking (compareVersions).
   */
  private toolCompatibility(pkg: NonNullable<Awaited<ReturnType<typeof loadAgentSkillPackage>>['package']>): ValidationIssue[] {
    const previous = previousVersion(this.catalog.get(pkg.registryName), pkg.version);
    if (!previous || previous.format !== 'agent-skills') return [];
    const issues: ValidationIssue[] = [];
    for (const old of previous.tools.filter((tool) => tool.script)) {
      const current = pkg.tools.find((tool) => tool.name === old.name);
      const report = compareVersions(
        { version: previous.version, inputSchema: old.input_schema, outputSchema: old.output_schema, compatibility: 'backward' },
        {
          version: pkg.version,
          inputSchema: current?.inputSchema ?? { not: {} },
          outputSchema: current?.outputSchema ?? null,
          compatibility: 'backward',
        },
      );
      if (!current && !report.breaking_allowed) {
        issues.push({
          severity: 'error',
          category: 'compatibility',
          file: 'tools.yaml',
          path: `/tools/${old.name}`,
          message: `tool ${old.name} of ${previous.version} is gone (TOOL_REMOVED)`,
          hint: 'Keep the tool, or release the package under a new major version (a breaking change needs one).',
        });
        continue;
      }
      if (current) {
        for (const issue of compatibilityIssues(report, 'tools.yaml')) issues.push({ ...issue, path: `/tools/${old.name}${issue.path}` });
      }
    }
    return issues;
  }

  private compatibility(loaded: Awaited<ReturnType<SkillPackageLoader['load']>>): {
    report: VersionCompatibility | null;
    issues: ValidationIssue[];
  } {
    const definition = loaded.definition;
    if (!definition || !loaded.valid) return { report: null, issues: [] };
    const previous = previousVersion(this.catalog.get(definition.name), definition.version);
    if (!previous) return { report: null, issues: [] };
    const next = {
      version: definition.version,
      inputSchema: loaded.inputJsonSchema,
      outputSchema: loaded.outputJsonSchema,
      compatibility: definition.compatibility,
    };
    try {
      const report = compareVersions(previous, next);
      return { report, issues: compatibilityIssues(report, 'schema.ts') };
    } catch (error) {
      if (!(error instanceof InvalidSchemaError)) throw error;
      const issue: ValidationIssue = {
        severity: 'error',
        category: 'compatibility',
        file: 'schema.ts',
        path: '',
        message: `cannot compare with ${previous.version}: ${error.message}`,
        hint: 'Fix the schema so that it is a valid JSON Schema 2020-12.',
      };
      return { report: null, issues: [issue] };
    }
  }

  /** Seed 001 §3.1: each required tool against the adapters configured here (see requiredToolIssues). */
  private async requiredTools(toolIds: string[]): Promise<ValidationIssue[]> {
    if (toolIds.length === 0) return [];
    return requiredToolIssues(toolIds, await this.adapterTools.declarations(toolIds));
  }

  private dependencyRules(name: string | null, dependsOn: SkillDependency[], format: NewSkillVersion['format']): ValidationIssue[] {
    if (!name || dependsOn.length === 0) return [];
    const cycle = findCycle(name, dependsOn, (other) => this.catalog.get(other));
    if (!cycle) return [];
    const index = dependsOn.findIndex((dependency) => dependency.name === cycle[1]);
    return [
      {
        severity: 'error',
        category: 'dependencies',
        file: format === 'agent-skills' ? 'SKILL.md' : 'definition.json',
        path: format === 'agent-skills' ? `/metadata/dcc-mcp/depends/${index}` : `/depends_on/${index}`,
        message: `dependency cycle: ${cycle.join(' → ')}`,
        hint: `Remove one of these dependencies; skills must form a graph without cycles.`,
      },
    ];
  }
}
