import semver from 'semver';
import { type CompatibilityReport, checkCompatibility } from '#schema-compat/index.js';
import type { CompatibilityPolicy, ValidationIssue } from '#skill-loader/index.js';
import type { SkillRecord, SkillVersionRecord } from '../catalog/skill-records.js';

/** What the rule needs of a version: its number, schemas and policy. */
export interface ContractOf {
  version: string;
  inputSchema: Record<string, unknown> | null;
  outputSchema: Record<string, unknown> | null;
  compatibility: CompatibilityPolicy;
}

/** The report between two versions of one skill, as registration, the dry run and GET …/compatibility show it. */
export interface VersionCompatibility {
  from: string;
  to: string;
  policy: CompatibilityPolicy;
  /**
   * Whether `to` may break `from`'s contract: it lies outside `^from` (a major bump, or a minor bump
   * in 0.x, as semver's caret ranges say), or `from` is a pre-release, or the policy is `none`.
   */
  breaking_allowed: boolean;
  /** Inputs: `to` must accept every input `from` accepted (backward; `full` both ways). */
  input: CompatibilityReport & { direction: 'backward' | 'full' };
  /** Outputs: every output of `to` must be valid under `from`'s schema (forward; `full` both ways). */
  output: CompatibilityReport & { direction: 'forward' | 'full' };
  /** Both schemas compatible. */
  compatible: boolean;
  /** Compatible, or breaking allowed: whether registration accepts `to` after `from`. */
  accepted: boolean;
}

const ANY: Record<string, unknown> = {};

/**
 * The one place of the semver rule: compares `to` with `from` under `to`'s policy. A missing schema
 * (a DRAFT that could not derive one) compares as the empty schema.
 */
export function compareVersions(from: ContractOf, to: ContractOf): VersionCompatibility {
  const policy = to.compatibility;
  const inputDirection = policy === 'full' ? 'full' : 'backward';
  const outputDirection = policy === 'full' ? 'full' : 'forward';
  const input = {
    direction: inputDirection,
    ...checkCompatibility(from.inputSchema ?? ANY, to.inputSchema ?? ANY, inputDirection),
  } as const;
  const output = {
    direction: outputDirection,
    ...checkCompatibility(from.outputSchema ?? ANY, to.outputSchema ?? ANY, outputDirection),
  } as const;
  const breakingAllowed =
    policy === 'none' ||
    semver.prerelease(from.version) !== null ||
    !semver.satisfies(to.version, `^${from.version}`, { includePrerelease: true });
  const compatible = input.compatible && output.compatible;
  return {
    from: from.version,
    to: to.version,
    policy,
    breaking_allowed: breakingAllowed,
    input,
    output,
    compatible,
    accepted: compatible || breakingAllowed,
  };
}

/** The version a new one is compared with: the highest non-DRAFT version below it, if any. */
export function previousVersion(skill: SkillRecord | undefined, version: string): SkillVersionRecord | undefined {
  // Versions are kept highest first.
  return skill?.versions.find((candidate) => candidate.status !== 'DRAFT' && semver.lt(candidate.version, version));
}

/** A refused comparison as validation errors: one per breaking change, naming the schema, pointer and the fix. */
export function compatibilityIssues(report: VersionCompatibility, schemaFile: string): ValidationIssue[] {
  if (report.accepted) return [];
  const major = semver.inc(report.from, semver.major(report.from) === 0 ? 'minor' : 'major');
  const breaks = [
    ...report.input.changes.filter((change) => change.breaking).map((change) => ({ side: 'input', change })),
    ...report.output.changes.filter((change) => change.breaking).map((change) => ({ side: 'output', change })),
  ];
  return breaks.map(({ side, change }) => ({
    severity: 'error',
    category: 'compatibility',
    file: schemaFile,
    path: `/${side}${change.new_pointer}`,
    message: `${side} schema breaks ${report.from} (${change.code}): ${change.message}`,
    hint: `Keep the ${side} schema compatible with ${report.from}, or release it as ${major} (a breaking change needs a major version); "compatibility": "none" in definition.json opts out.`,
  }));
}
