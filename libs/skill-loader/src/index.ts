export {
  isStrictSemver,
  SKILL_NAME_PATTERN,
  TOOL_ID_PATTERN,
  type SkillDefinition,
  type SkillExample,
  type ToolRef,
  type SkillDependency,
  type CompatibilityPolicy,
  COMPATIBILITY_POLICIES,
} from './definition.js';
export {
  resolveExampleTwin,
  type ExampleTwinConstraint,
  type ExampleTwinFixture,
  type ExampleTwinWorkProduct,
  type PackageFileSource,
  type ResolvedTwinWorkProduct,
} from './example-twin.js';
export type { IssueCategory, IssueSeverity, ValidationIssue } from './issues.js';
export { countIssues } from './issues.js';
export { DRAFT_VERSION, SkillPackageLoader, type LoadedSkillPackage, type SkillPackageLoaderOptions } from './loader.js';
export { findSkillPackages, hashSkillPackage, isSkillPackageDir } from './package-files.js';
export { formatPackageReport } from './report.js';
