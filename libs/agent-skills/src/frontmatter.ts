import { closest } from '#skill-loader/definition-messages.js';
import { describeValue } from '#skill-loader/describe.js';
import { toJsonPointer, type IssueList } from '#skill-loader/issues.js';
import { VENDOR_NAMESPACES } from './metadata-strings.js';
import { agentSkillsNameProblem, isAgentSkillsName } from './names.js';
import { isMapping } from './yaml-text.js';

const FILE = 'SKILL.md';
/** Why a non-string metadata value matters beyond this registry (the MCP Skills extension's string-map rule). */
const SKILLS_EXTENSION_NOTE =
  'agentskills.io metadata maps keys to strings, and MCP Skills extension (SEP-2640) clients refuse other values, so skills/list does not list this package (its tools are served as usual).';
const DESCRIPTION_MAX_LENGTH = 1024;
const COMPATIBILITY_MAX_LENGTH = 500;
/** The agentskills.io 1.0 frontmatter keys: nothing else may sit at the top level. */
const FRONTMATTER_KEYS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'] as const;

/**
 * Pre-0.15 dcc-mcp-core extension keys written at the top level (seed 004, "Migrating pre-0.15 SKILL.md"), with
 * the key they now have under `metadata.dcc-mcp`. The strict loader refuses them.
 */
const LEGACY_KEYS: Record<string, string> = {
  dcc: 'dcc',
  version: 'version',
  tags: 'tags',
  'search-hint': 'search-hint',
  search_hint: 'search-hint',
  'search-aliases': 'search-aliases',
  search_aliases: 'search-aliases',
  layer: 'layer',
  depends: 'depends',
  products: 'products',
  allow_implicit_invocation: 'allow-implicit-invocation',
  'allow-implicit-invocation': 'allow-implicit-invocation',
  external_deps: 'external-deps',
  'external-deps': 'external-deps',
  tools: 'tools',
  groups: 'groups',
  prompts: 'prompts',
  resources: 'resources',
  workflows: 'workflows',
  runtimes: 'runtimes',
};

/** The agentskills.io fields of the frontmatter, each valid or null (an issue was recorded). */
export interface FrontmatterFields {
  /** As written when it is a string (even an invalid one), else null. */
  name: string | null;
  nameValid: boolean;
  description: string | null;
  license: string | null;
  compatibility: string | null;
  allowedTools: string[];
  /** `metadata` as written (only its valid entries are read further). */
  metadata: Record<string, unknown>;
}

/** The YAML text between the leading `---` lines of SKILL.md and the Markdown after them; null without frontmatter. */
export function splitSkillMarkdown(markdown: string): { frontmatter: string; body: string } | null {
  const lines = markdown.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return null;
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
  if (end < 0) return null;
  return { frontmatter: lines.slice(1, end).join('\n'), body: lines.slice(end + 1).join('\n') };
}

/** Check the frontmatter mapping against agentskills.io and seed 004's strict key set. */
export function checkFrontmatter(raw: Record<string, unknown>, directoryName: string, issues: IssueList): FrontmatterFields {
  for (const key of Object.keys(raw)) {
    if ((FRONTMATTER_KEYS as readonly string[]).includes(key)) continue;
    reportTopLevelKey(key, issues);
  }
  const name = checkName(raw.name, directoryName, issues);
  return {
    name: typeof raw.name === 'string' ? raw.name : null,
    nameValid: name !== null,
    description: checkBoundedString(raw.description, 'description', DESCRIPTION_MAX_LENGTH, true, issues),
    license: checkBoundedString(raw.license, 'license', null, false, issues),
    compatibility: checkBoundedString(raw.compatibility, 'compatibility', COMPATIBILITY_MAX_LENGTH, false, issues),
    allowedTools: checkAllowedTools(raw['allowed-tools'], issues),
    metadata: checkMetadata(raw.metadata, issues),
  };
}

function reportTopLevelKey(key: string, issues: IssueList): void {
  const replacement = LEGACY_KEYS[key];
  if (key === 'next-tools' || key === 'next_tools') {
    issues.error(
      'definition',
      FILE,
      toJsonPointer([key]),
      `top-level '${key}' is a legacy dcc-mcp extension key and is refused`,
      'Move next-tools into each tool entry of tools.yaml (next-tools: { on-success: [...], on-failure: [...] }).',
    );
  } else if (replacement !== undefined) {
    const sibling = ['tools', 'groups'].includes(replacement)
      ? ` (a sibling file: metadata.dcc-mcp.${replacement}: ${replacement}.yaml)`
      : '';
    issues.error(
      'definition',
      FILE,
      toJsonPointer([key]),
      `top-level '${key}' is a legacy dcc-mcp extension key and is refused: agentskills.io allows only ${FRONTMATTER_KEYS.join(', ')}`,
      `Move it to metadata.dcc-mcp.${replacement}${sibling}, e.g.\nmetadata:\n  dcc-mcp:\n    ${replacement}: ...`,
    );
  } else {
    const suggestion = closest(key, FRONTMATTER_KEYS);
    issues.error(
      'definition',
      FILE,
      toJsonPointer([key]),
      `unknown frontmatter key '${key}': agentskills.io allows only ${FRONTMATTER_KEYS.join(', ')}`,
      suggestion
        ? `Did you mean '${suggestion}'?`
        : `Put extra information under metadata (a string map), e.g. "metadata: { ${key}: '...' }".`,
    );
  }
}

function checkName(value: unknown, directoryName: string, issues: IssueList): string | null {
  if (value === undefined || value === null) {
    issues.error('definition', FILE, '/name', "required field 'name' is missing", `Add "name: ${directoryName}" to the frontmatter.`);
    return null;
  }
  if (typeof value !== 'string') {
    issues.error('definition', FILE, '/name', `field 'name' must be a string; found ${describeValue(value)}`, 'Write the name as text.');
    return null;
  }
  const problem = agentSkillsNameProblem(value);
  if (problem) {
    issues.error('definition', FILE, '/name', problem.message, problem.hint);
    return null;
  }
  if (value !== directoryName) {
    issues.error(
      'definition',
      FILE,
      '/name',
      `name '${value}' does not match the package directory name '${directoryName}'`,
      `Rename the directory to '${value}' or set "name: ${isAgentSkillsName(directoryName) ? directoryName : value}"; agentskills.io requires them to be equal.`,
    );
    return null;
  }
  return value;
}

function checkBoundedString(value: unknown, field: string, max: number | null, required: boolean, issues: IssueList): string | null {
  if (value === undefined || value === null) {
    if (required) {
      issues.error(
        'definition',
        FILE,
        `/${field}`,
        `required field '${field}' is missing`,
        `Add "${field}: <what the skill does and when to use it>".`,
      );
    }
    return null;
  }
  if (typeof value !== 'string') {
    issues.error('definition', FILE, `/${field}`, `field '${field}' must be a string; found ${describeValue(value)}`, 'Write it as text.');
    return null;
  }
  const length = [...value].length;
  if (value.trim() === '') {
    issues.error('definition', FILE, `/${field}`, `field '${field}' is empty`, `Write the ${field} or remove the key.`);
    return null;
  }
  if (max !== null && length > max) {
    issues.error(
      'definition',
      FILE,
      `/${field}`,
      `field '${field}' is ${length} characters long; at most ${max} are allowed`,
      field === 'description'
        ? 'Shorten it to what the skill does and when to use it; move details into the SKILL.md body or references/.'
        : `Shorten it to ${max} characters.`,
    );
    return null;
  }
  return value;
}

/** agentskills.io writes allowed-tools as one space-separated string; a YAML list is accepted too. */
function checkAllowedTools(value: unknown, issues: IssueList): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(/\s+/).filter((tool) => tool !== '');
  if (Array.isArray(value) && value.every((tool) => typeof tool === 'string')) return value.map((tool) => tool.trim()).filter(Boolean);
  issues.error(
    'definition',
    FILE,
    '/allowed-tools',
    `field 'allowed-tools' must be a space-separated string (or a list of strings); found ${describeValue(value)}`,
    'Write it as e.g. "allowed-tools: Bash(git:*) Read".',
  );
  return [];
}

function checkMetadata(value: unknown, issues: IssueList): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isMapping(value)) {
    issues.error(
      'definition',
      FILE,
      '/metadata',
      `field 'metadata' must be a mapping of keys to strings; found ${describeValue(value)}`,
      'Write it as "metadata:" followed by indented "key: value" lines.',
    );
    return {};
  }
  // Seed 004's own namespace is checked by readDccMcp; every other key is kept and served as written (issue 24):
  // a string as agentskills.io says, or another vendor's block (ClawHub/OpenClaw's `metadata.openclaw`) that
  // real packages carry. Neither is read here, so neither can fail a package; a non-string value is a warning.
  for (const [key, entry] of Object.entries(value)) {
    if ((VENDOR_NAMESPACES as readonly string[]).includes(key)) continue;
    if (typeof entry === 'string') {
      if (key.startsWith('dcc-mcp.')) {
        issues.warning(
          'definition',
          FILE,
          toJsonPointer(['metadata', key]),
          `metadata '${key}' is the pre-0.15 flat form and is not read`,
          `Nest it: metadata:\n  dcc-mcp:\n    ${key.slice('dcc-mcp.'.length)}: ${JSON.stringify(entry)}`,
        );
      }
      continue;
    }
    issues.warning(
      'definition',
      FILE,
      toJsonPointer(['metadata', key]),
      isMapping(entry)
        ? `metadata '${key}' is a nested block (another vendor's namespace); it is kept and served as written, not read`
        : `metadata '${key}' is ${describeValue(entry)}, not a string; it is kept and served as written, not read`,
      `${SKILLS_EXTENSION_NOTE} Quote a scalar (${key}: "...") if it is meant as a string.`,
    );
  }
  return value;
}
