export {
  type SkillDefinition,
  type SkillExample,
  type AdapterToolRef,
  type SkillDependency,
  type CompatibilityPolicy,
  COMPATIBILITY_POLICIES,
} from './definition.js';
export { resolveExampleTwin, type PackageFileSource } from './example-twin.js';
export type { ValidationIssue } from './issues.js';
export { countIssues, ISSUE_CATEGORIES } from './issues.js';
export { SkillPackageLoader, type LoadedSkillPackage } from './loader.js';
export type { CodeInspector } from './code-inspection.js';
export { findSkillPackages, hashSkillPackage, isSkillPackageDir } from './package-files.js';
export { formatPackageReport } from './report.js';
