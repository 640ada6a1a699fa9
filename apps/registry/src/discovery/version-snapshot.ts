import path from 'node:path';
import semver from 'semver';
import type { LoadedSkillPackage } from '../../../../libs/skill-loader/src/index.js';
import type { NewSkillVersion } from '../catalog/skill-records.js';

/** The stored form of a loaded package (DRAFT packages keep whatever could be read). */
export function versionFromPackage(loaded: LoadedSkillPackage): NewSkillVersion {
  const definition = loaded.definition;
  const parsed = semver.parse(loaded.identity.version) ?? (semver.parse('0.0.0-draft') as semver.SemVer);
  const errors = loaded.issues.filter((issue) => issue.severity === 'error');
  const valid = loaded.valid && definition !== null;
  return {
    name: loaded.identity.name,
    version: parsed.version,
    versionKey: [parsed.major, parsed.minor, parsed.patch, parsed.prerelease.join('.')],
    domain: definition?.domain ?? path.basename(path.dirname(loaded.packagePath)),
    agent: definition?.agent ?? '',
    description: definition?.description ?? '',
    phase: definition?.phase ?? 1,
    toolsRequired: definition?.tools_required ?? [],
    inputSchemaRef: definition?.input_schema ?? '',
    outputSchemaRef: definition?.output_schema ?? '',
    inputSchema: loaded.inputJsonSchema,
    outputSchema: loaded.outputJsonSchema,
    timeoutSeconds: definition?.timeout_seconds ?? 120,
    retries: definition?.retries ?? 0,
    idempotent: definition?.idempotent ?? false,
    tags: definition?.tags ?? [],
    examples: definition?.examples ?? [],
    readOnly: definition?.read_only ?? false,
    dependsOn: definition?.depends_on ?? [],
    compatibility: definition?.compatibility ?? 'backward',
    packagePath: loaded.packagePath,
    contentHash: loaded.contentHash,
    validation: loaded.issues,
    status: valid ? 'REGISTERED' : 'DRAFT',
    statusReason: valid
      ? 'validation passed'
      : `validation failed: ${errors[0] ? `${errors[0].file}${errors[0].path ? ` ${errors[0].path}` : ''}: ${errors[0].message}` : 'no definition'}`,
  };
}
