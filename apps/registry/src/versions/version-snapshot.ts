import path from 'node:path';
import semver from 'semver';
import type { AgentSkillPackage, ScriptTool } from '#agent-skills/index.js';
import type { StoredScriptTool, VersionExposure } from '#contracts/index.js';
import type { LoadedSkillPackage, SkillDefinition, ValidationIssue } from '#skill-loader/index.js';
import type { NewSkillVersion } from '../catalog/skill-records.js';

/** DRAFT unless the package is valid; the reason names the first error. */
export function statusOf(valid: boolean, issues: readonly ValidationIssue[]): Pick<NewSkillVersion, 'status' | 'statusReason'> {
  if (valid) return { status: 'REGISTERED', statusReason: 'validation passed' };
  const first = issues.find((issue) => issue.severity === 'error');
  return {
    status: 'DRAFT',
    statusReason: `validation failed: ${first ? `${first.file}${first.path ? ` ${first.path}` : ''}: ${first.message}` : 'no definition'}`,
  };
}

function versionKeyOf(version: string): Pick<NewSkillVersion, 'version' | 'versionKey'> {
  const parsed = semver.parse(version) ?? (semver.parse('0.0.0-draft') as semver.SemVer);
  return { version: parsed.version, versionKey: [parsed.major, parsed.minor, parsed.patch, parsed.prerelease.join('.')] };
}

/** The stored form of a loaded TypeScript package (DRAFT packages keep whatever could be read). */
export function versionFromPackage(loaded: LoadedSkillPackage): NewSkillVersion {
  const definition = loaded.definition;
  return {
    name: loaded.identity.name,
    ...versionKeyOf(loaded.identity.version),
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
    maxRetriesPerGate: definition?.max_retries_per_gate ?? 0,
    tags: definition?.tags ?? [],
    examples: definition?.examples ?? [],
    readOnly: definition?.read_only ?? false,
    dependsOn: definition?.depends_on ?? [],
    compatibility: definition?.compatibility ?? 'backward',
    format: 'typescript',
    tools: [],
    agentSkill: null,
    exposure: definition ? typescriptExposure(definition) : {},
    packagePath: loaded.packagePath,
    contentHash: loaded.contentHash,
    validation: loaded.issues,
    ...statusOf(loaded.valid && definition !== null, loaded.issues),
  };
}

/** definition.json's MCP annotations and task support, only what it declares beyond the defaults. */
function typescriptExposure(definition: SkillDefinition): VersionExposure {
  return {
    ...(definition.title !== undefined ? { title: definition.title } : {}),
    destructive: definition.destructive,
    open_world: definition.open_world,
    ...(definition.task_support !== undefined ? { task_support: definition.task_support } : {}),
  };
}

function storedTool(tool: ScriptTool): StoredScriptTool {
  return {
    name: tool.name,
    qualified_name: tool.qualifiedName,
    description: tool.description,
    input_schema: tool.inputSchema,
    output_schema: tool.outputSchema,
    read_only: tool.readOnly,
    destructive: tool.destructive,
    idempotent: tool.idempotent,
    timeout_seconds: tool.timeoutSeconds,
    retries: tool.retries,
    search_aliases: tool.searchAliases,
    next_tools: { on_success: tool.nextTools.onSuccess, on_failure: tool.nextTools.onFailure },
    annotations: tool.annotations,
    examples: tool.examples,
    script: tool.script,
    not_executable_reason: tool.notExecutableReason,
    group: tool.group,
    defer_loading: tool.deferLoading,
    task_support: tool.taskSupport,
  };
}

/**
 * The stored form of an Agent Skills package. Its contract lives in its tools (each with schemas,
 * limits and examples); the version-level fields summarise them. Domain and agent come from
 * `metadata.domain` / `metadata.agent` when given (the format has no such fields), else `agent-skills`.
 */
export function versionFromAgentSkill(
  pkg: AgentSkillPackage | null,
  fallbackName: string,
  valid: boolean,
  issues: ValidationIssue[],
  contentHash: string,
  packagePath: string,
): NewSkillVersion {
  const tools = (pkg?.tools ?? []).map(storedTool);
  const strings = pkg?.metadataStrings ?? {};
  return {
    name: pkg?.registryName ?? fallbackName,
    ...versionKeyOf(pkg?.version ?? '0.0.0-draft'),
    domain: strings.domain ?? 'agent-skills',
    agent: strings.agent ?? '',
    description: pkg?.description ?? '',
    phase: 1,
    toolsRequired: [],
    inputSchemaRef: '',
    outputSchemaRef: '',
    inputSchema: null,
    outputSchema: null,
    timeoutSeconds: Math.max(1, ...tools.map((tool) => tool.timeout_seconds)),
    retries: 0,
    idempotent: tools.length > 0 && tools.every((tool) => tool.idempotent),
    // seed 004's tools.yaml has no gate re-asks: a script tool's output gate answers once.
    maxRetriesPerGate: 0,
    tags: pkg?.tags ?? [],
    examples: [],
    readOnly: tools.every((tool) => tool.read_only),
    dependsOn: pkg?.depends ?? [],
    compatibility: 'backward',
    format: 'agent-skills',
    tools,
    agentSkill: pkg
      ? {
          name: pkg.name,
          license: pkg.license,
          compatibility: pkg.compatibility,
          allowed_tools: pkg.allowedTools,
          metadata: pkg.metadata,
          metadata_strings: pkg.metadataStrings,
          search_hint: pkg.searchHint,
          search_aliases: pkg.searchAliases,
          layer: pkg.layer,
          instruction_only: pkg.instructionOnly,
          version_defaulted: pkg.versionDefaulted,
          dcc: pkg.dcc,
          products: pkg.products,
          implicit_invocation: pkg.implicitInvocation,
          external_deps: pkg.externalDeps,
        }
      : null,
    exposure: {
      groups: (pkg?.toolGroups ?? []).map(({ name, description, defaultActive, tools }) => ({
        name,
        description,
        default_active: defaultActive,
        tools,
      })),
    },
    prompts: pkg?.prompts ?? [],
    resources: pkg?.resources ?? [],
    workflows: pkg?.workflows ?? [],
    // The runtimes' state is the registration probe's (PackageIntake); declared here, found there.
    runtimes: [],
    packagePath,
    contentHash,
    validation: issues,
    ...statusOf(valid && pkg !== null, issues),
  };
}
