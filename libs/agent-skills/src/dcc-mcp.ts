import semver from 'semver';
import { closest } from '#skill-loader/definition-messages.js';
import { isStrictSemver } from '#skill-loader/definition.js';
import { describeValue } from '#skill-loader/describe.js';
import { toJsonPointer, type IssueList } from '#skill-loader/issues.js';
import { parseDepends } from './depends.js';
import { describePathProblem, resolvePackagePath } from './package-paths.js';
import { sidecarFiles } from './sidecar-files.js';
import type { SkillDependency } from './types.js';
import { isMapping } from './yaml-text.js';

const FILE = 'SKILL.md';
/** Seed 004: `SkillMetadata.version` defaults to "1.0.0" when the package declares none. */
const DEFAULT_VERSION = '1.0.0';
/** Version given to a package whose version is invalid (the skill-loader's DRAFT_VERSION). */
const INVALID_VERSION = '0.0.0-draft';
/** Seed 004's discovery layers (`metadata.dcc-mcp.layer`). */
const LAYERS = ['domain', 'infrastructure', 'thin-harness', 'example'] as const;

/** `metadata.dcc-mcp` keys that name sibling files or folders (seed 004's sibling-file rule). */
const SIDECAR_KEYS = ['groups', 'prompts', 'resources', 'workflows', 'examples', 'annotations', 'runtimes'];
/** Keys of `metadata.dcc-mcp` this loader knows; they are kept in `metadata` as written. */
const KNOWN_KEYS = [
  'dcc',
  'version',
  'layer',
  'tags',
  'search-hint',
  'search-aliases',
  'depends',
  'tools',
  'products',
  'allow-implicit-invocation',
  'external-deps',
  ...SIDECAR_KEYS,
];

/** Sidecars whose files are read into the version (prompts, resources, workflows); runtimes may also be inline. */
const READ_SIDECARS = ['prompts', 'resources', 'workflows'] as const;
/** Sidecars checked to exist but not read here: said so with an info, never dropped in silence. */
const CHECKED_ONLY: Record<string, string> = {
  examples: 'example dialogues are files for the agent to read (they stay in the package and in skills/get)',
  annotations: 'tool annotations are read from tools.yaml entries, not from an annotations file',
};

/** What `metadata.dcc-mcp` (and the generic `metadata.version`) give the package. */
export interface DccMcpFields {
  /** The package carries a `metadata.dcc-mcp` mapping. */
  present: boolean;
  version: string;
  versionDefaulted: boolean;
  tags: string[];
  searchHint: string | null;
  searchAliases: string[];
  layer: string | null;
  depends: SkillDependency[];
  /** Package-relative path of the tools file named by `metadata.dcc-mcp.tools`, when it resolved. */
  toolsFile: string | null;
  /** `metadata.dcc-mcp.tools` was written (whether or not it resolved). */
  toolsDeclared: boolean;
  /** Package-relative path of `metadata.dcc-mcp.groups`, when it resolved to a file. */
  groupsFile: string | null;
  /** The files `metadata.dcc-mcp.prompts`, `.resources` and `.workflows` name (a file, a directory or a glob). */
  sidecars: Record<(typeof READ_SIDECARS)[number], string[]>;
  /** `metadata.dcc-mcp.runtimes` as written (a list, or the name of a runtimes file). */
  runtimes: unknown;
  /** The `metadata.dcc-mcp` mapping itself ({} when absent or not a mapping). */
  extension: Record<string, unknown>;
}

/** Check seed 004's `metadata.dcc-mcp.*` extensions and read the package version. */
export async function checkDccMcp(
  metadata: Record<string, unknown>,
  packageDir: string,
  files: readonly string[],
  registryName: string,
  issues: IssueList,
): Promise<DccMcpFields> {
  const raw = metadata['dcc-mcp'];
  const at = (...keys: string[]) => toJsonPointer(['metadata', 'dcc-mcp', ...keys]);
  const fields: DccMcpFields = {
    present: false,
    version: DEFAULT_VERSION,
    versionDefaulted: false,
    tags: [],
    searchHint: null,
    searchAliases: [],
    layer: null,
    depends: [],
    toolsFile: null,
    toolsDeclared: false,
    groupsFile: null,
    sidecars: { prompts: [], resources: [], workflows: [] },
    runtimes: undefined,
    extension: {},
  };
  let extension: Record<string, unknown> = {};
  if (raw !== undefined && raw !== null) {
    if (isMapping(raw)) {
      extension = raw;
      fields.present = true;
    } else {
      issues.error(
        'definition',
        FILE,
        at(),
        `metadata.dcc-mcp must be a mapping; found ${describeValue(raw)}`,
        'Write it as "dcc-mcp:" under metadata, followed by indented keys (version, tags, tools, ...).',
      );
    }
  }
  for (const key of Object.keys(extension)) {
    if (KNOWN_KEYS.includes(key)) continue;
    const suggestion = closest(key, KNOWN_KEYS);
    issues.warning(
      'definition',
      FILE,
      at(key),
      `metadata.dcc-mcp.${key} is not a key this registry reads (ignored)`,
      suggestion ? `Did you mean '${suggestion}'?` : `Known keys: ${KNOWN_KEYS.join(', ')}.`,
    );
  }
  Object.assign(fields, readVersion(extension.version, metadata.version, issues));
  fields.tags = stringList(extension.tags, 'tags', at('tags'), issues);
  fields.tags.forEach((tag, index) => {
    if (fields.tags.indexOf(tag) !== index) {
      issues.warning('definition', FILE, at('tags'), `tag '${tag}' is listed more than once`, 'Remove the duplicate tag.');
    }
  });
  fields.tags = [...new Set(fields.tags)];
  fields.searchHint = optionalString(extension['search-hint'], 'search-hint', at('search-hint'), issues);
  fields.searchAliases = stringList(extension['search-aliases'], 'search-aliases', at('search-aliases'), issues);
  fields.layer = readLayer(extension.layer, at('layer'), issues);
  fields.depends = parseDepends(extension.depends, FILE, at('depends'), registryName, issues);
  if (extension.tools !== undefined) {
    fields.toolsDeclared = true;
    fields.toolsFile = await readSidecar(extension.tools, 'tools', packageDir, at('tools'), issues, true);
  }
  if (extension.groups !== undefined) {
    fields.groupsFile = await readSidecar(extension.groups, 'groups', packageDir, at('groups'), issues, true);
  }
  for (const key of READ_SIDECARS) {
    const value = extension[key];
    if (value === undefined) continue;
    if (typeof value === 'string' && value.trim() !== '') fields.sidecars[key] = await sidecarFiles(value, key, packageDir, files, issues);
    else await readSidecar(value, key, packageDir, at(key), issues, false);
  }
  for (const [key, why] of Object.entries(CHECKED_ONLY)) {
    if (extension[key] === undefined) continue;
    if ((await readSidecar(extension[key], key, packageDir, at(key), issues, false)) === null) continue;
    issues.info('definition', FILE, at(key), `metadata.dcc-mcp.${key} is checked to exist but not read: ${why}`, 'Nothing to change.');
  }
  fields.runtimes = extension.runtimes;
  fields.extension = extension;
  return fields;
}

function readVersion(
  extensionVersion: unknown,
  genericVersion: unknown,
  issues: IssueList,
): Pick<DccMcpFields, 'version' | 'versionDefaulted'> {
  const path = toJsonPointer(['metadata', 'dcc-mcp', 'version']);
  if (extensionVersion !== undefined && extensionVersion !== null) {
    if (typeof extensionVersion !== 'string' || !isStrictSemver(extensionVersion)) {
      const coerced = semver.coerce(String(extensionVersion))?.version ?? '1.0.0';
      issues.error(
        'definition',
        FILE,
        path,
        `metadata.dcc-mcp.version must be a semantic version string MAJOR.MINOR.PATCH; found ${describeValue(extensionVersion)}`,
        `Write it quoted, e.g. version: "${coerced}" (no "v" prefix, no +build).`,
      );
      return { version: INVALID_VERSION, versionDefaulted: false };
    }
    if (typeof genericVersion === 'string' && genericVersion !== extensionVersion) {
      issues.warning(
        'definition',
        FILE,
        '/metadata/version',
        `metadata.version '${genericVersion}' differs from metadata.dcc-mcp.version '${extensionVersion}'; the latter is used`,
        'Keep one version: remove metadata.version or make both equal.',
      );
    }
    return { version: extensionVersion, versionDefaulted: false };
  }
  if (typeof genericVersion === 'string') {
    if (isStrictSemver(genericVersion)) return { version: genericVersion, versionDefaulted: false };
    const coerced = semver.coerce(genericVersion)?.version;
    if (coerced) {
      issues.warning(
        'definition',
        FILE,
        '/metadata/version',
        `metadata.version '${genericVersion}' is not a strict semantic version; it is registered as ${coerced}`,
        `Write "version: \\"${coerced}\\"" to say so explicitly.`,
      );
      return { version: coerced, versionDefaulted: false };
    }
    issues.error(
      'definition',
      FILE,
      '/metadata/version',
      `metadata.version '${genericVersion}' is not a semantic version`,
      'Write it as MAJOR.MINOR.PATCH, e.g. "1.0.0".',
    );
    return { version: INVALID_VERSION, versionDefaulted: false };
  }
  issues.warning(
    'definition',
    FILE,
    path,
    `no version declared (metadata.dcc-mcp.version or metadata.version); it defaults to ${DEFAULT_VERSION}`,
    `Declare it: metadata:\n  dcc-mcp:\n    version: "${DEFAULT_VERSION}"`,
  );
  return { version: DEFAULT_VERSION, versionDefaulted: true };
}

function readLayer(value: unknown, path: string, issues: IssueList): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && (LAYERS as readonly string[]).includes(value)) return value;
  issues.error(
    'definition',
    FILE,
    path,
    `metadata.dcc-mcp.layer must be one of ${LAYERS.join(', ')}; found ${describeValue(value)}`,
    `Use one of the discovery layers: ${LAYERS.join(' | ')}.`,
  );
  return null;
}

/** A list of non-empty strings, or one comma-separated string (seed 004's flat form). */
export function stringList(value: unknown, field: string, path: string, issues: IssueList, file = FILE): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') {
    return value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  }
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' && item.trim() !== '')) {
    return value.map((item) => (item as string).trim());
  }
  issues.error(
    'definition',
    file,
    path,
    `${field} must be a list of non-empty strings; found ${describeValue(value)}`,
    `Write ${field}: [a, b].`,
  );
  return [];
}

function optionalString(value: unknown, field: string, path: string, issues: IssueList): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && value.trim() !== '') return value;
  issues.error(
    'definition',
    FILE,
    path,
    `metadata.dcc-mcp.${field} must be a non-empty string; found ${describeValue(value)}`,
    'Write it as text.',
  );
  return null;
}

async function readSidecar(
  value: unknown,
  key: string,
  packageDir: string,
  path: string,
  issues: IssueList,
  mustBeFile: boolean,
): Promise<string | null> {
  const field = `metadata.dcc-mcp.${key}`;
  if (typeof value !== 'string' || value.trim() === '') {
    issues.error(
      'definition',
      FILE,
      path,
      `${field} must name a sibling file; found ${describeValue(value)}`,
      `Move the declarations into a sibling ${key}.yaml and write "${key}: ${key}.yaml" (seed 004: extensions live in sibling files, not inline).`,
    );
    return null;
  }
  if (/[*?[]/.test(value)) return null; // A glob (prompts/*.prompt.yaml) may match nothing yet.
  const resolved = await resolvePackagePath(packageDir, value);
  if (!resolved.ok) {
    const { message, hint } = describePathProblem(field, resolved);
    issues.error(resolved.problem === 'missing' ? 'files' : 'policy', FILE, path, message, hint);
    return null;
  }
  if (mustBeFile && resolved.kind !== 'file') {
    issues.error(
      'files',
      FILE,
      path,
      `${field} '${value}' is a directory, not a YAML file`,
      `Point ${field} at a file such as ${key}.yaml.`,
    );
    return null;
  }
  return resolved.path;
}
