import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { describeValue } from '#skill-loader/describe.js';
import { IssueList } from '#skill-loader/issues.js';
import { PackageLinkOutside } from '#package-store/package-files.js';
import { listPackageFiles } from '#skill-loader/package-files.js';
import { UNSAFE_PATTERN_HINT, unsafePatternMessage, unsafePatterns } from '#contracts/schema-pattern.js';
import { checkDccMcp } from './dcc-mcp.js';
import { readDccMcpPolicy } from './dcc-mcp-policy.js';
import { parseDepends } from './depends.js';
import { checkFrontmatter, splitSkillMarkdown, type FrontmatterFields } from './frontmatter.js';
import { projectMetadataStrings } from './metadata-strings.js';
import { readPrompts } from './prompts.js';
import { readResources } from './resources.js';
import { readRuntimes } from './runtimes.js';
import { toRegistryName } from './names.js';
import { entryPointScripts } from './scripts.js';
import { finishDeclaredTools, toolsFromScripts } from './tools.js';
import { readToolsFile } from './tools-file.js';
import type { AgentSkillLoadResult, AgentSkillPackage, ScriptTool, SkillDependency, ToolGroup } from './types.js';
import { readWorkflows } from './workflows.js';
import { isMapping, parseYamlText } from './yaml-text.js';

const SKILL_MD = 'SKILL.md';
const DEPENDS_FILE = 'metadata/depends.md';
/** agentskills.io: keep the SKILL.md body under 500 lines, detail goes to references/. */
const BODY_MAX_LINES = 500;

/**
 * Read and validate an Agent Skills package directory (SKILL.md with agentskills.io frontmatter, seed 004's
 * `metadata.dcc-mcp.*` extensions, tools.yaml, scripts/). Fail-soft: every problem is an issue in the report, in
 * the skill loader's shape; it never throws for a bad package.
 */
export async function loadAgentSkillPackage(dir: string): Promise<AgentSkillLoadResult> {
  const issues = new IssueList();
  const done = (pkg: AgentSkillPackage | null): AgentSkillLoadResult => ({ package: pkg, issues: issues.items, valid: !issues.hasErrors });
  const packageDir = resolve(dir);
  const files = await listPackageFiles(packageDir).catch((error: unknown) => (error instanceof PackageLinkOutside ? error : null));
  if (files instanceof PackageLinkOutside) {
    issues.error('policy', files.entry, '', files.message, 'Copy the file into the package, or link to a file inside it.');
    return done(null);
  }
  if (files === null) {
    issues.error(
      'files',
      '',
      '',
      `package directory '${basename(packageDir)}' cannot be read`,
      'Check that the path names a readable directory.',
    );
    return done(null);
  }
  if (files.includes('definition.json')) {
    issues.error(
      'files',
      'definition.json',
      '',
      'definition.json is present: this is a TypeScript skill package, not an Agent Skills package',
      'Load it with the skill loader (libs/skill-loader), or remove definition.json to make it an Agent Skills package.',
    );
    return done(null);
  }
  const frontmatter = await readFrontmatter(packageDir, files, issues);
  if (frontmatter === null) return done(null);
  const fields = checkFrontmatter(frontmatter.raw, basename(packageDir), issues);
  const pkg = await assemblePackage(packageDir, files, fields, frontmatter.body, issues);
  if (pkg) await checkPatterns(pkg, issues);
  return done(pkg);
}

/** Every tool's and workflow's schemas against the pattern rule (see unsafePatterns). */
async function checkPatterns(pkg: AgentSkillPackage, issues: IssueList): Promise<void> {
  const sites = [
    ...pkg.tools.flatMap((tool) => [
      { label: `tool '${tool.name}'`, role: 'input' as const, schema: tool.inputSchema },
      { label: `tool '${tool.name}'`, role: 'output' as const, schema: tool.outputSchema },
    ]),
    ...pkg.workflows.map((workflow) => ({ label: `workflow '${workflow.name}'`, role: 'input' as const, schema: workflow.input_schema })),
  ];
  for (const site of sites) {
    for (const unsafe of await unsafePatterns(site.schema)) {
      issues.error(
        'schema',
        'tools.yaml',
        unsafe.pointer,
        `${site.label}: ${unsafePatternMessage(site.role, unsafe)}`,
        UNSAFE_PATTERN_HINT,
      );
    }
  }
}

async function readFrontmatter(
  packageDir: string,
  files: string[],
  issues: IssueList,
): Promise<{ raw: Record<string, unknown>; body: string } | null> {
  if (!files.includes(SKILL_MD)) {
    issues.error(
      'files',
      SKILL_MD,
      '',
      'SKILL.md is missing',
      'Add SKILL.md with frontmatter (name, description) and the instructions for the agent.',
    );
    return null;
  }
  const markdown = await readFile(join(packageDir, SKILL_MD), 'utf8').catch(() => null);
  if (markdown === null) {
    issues.error('files', SKILL_MD, '', 'SKILL.md cannot be read', 'Check the file permissions.');
    return null;
  }
  const parts = splitSkillMarkdown(markdown);
  if (parts === null) {
    issues.error(
      'definition',
      SKILL_MD,
      '',
      'SKILL.md has no frontmatter (a leading --- block with name and description)',
      `Start SKILL.md with:\n---\nname: ${basename(packageDir)}\ndescription: <what the skill does and when to use it>\n---`,
    );
    return null;
  }
  const parsed = parseYamlText(parts.frontmatter, SKILL_MD, 1, issues);
  if (!parsed.ok) return null;
  if (!isMapping(parsed.value)) {
    issues.error(
      'definition',
      SKILL_MD,
      '',
      `SKILL.md frontmatter must be a mapping; found ${describeValue(parsed.value)}`,
      'Write "name: ..." and "description: ..." lines between the --- lines.',
    );
    return null;
  }
  return { raw: parsed.value, body: parts.body };
}

async function assemblePackage(
  packageDir: string,
  files: string[],
  fields: FrontmatterFields,
  body: string,
  issues: IssueList,
): Promise<AgentSkillPackage> {
  const name = fields.name ?? basename(packageDir);
  const registryName = toRegistryName(name);
  const extension = await checkDccMcp(fields.metadata, packageDir, files, registryName, issues);
  const policy = readDccMcpPolicy(extension.extension, issues);
  const depends = mergeDepends(extension.depends, await readDependsFile(packageDir, files, registryName, issues), issues);
  const { tools, groups: toolGroups } = await readTools(packageDir, files, registryName, fields.description ?? '', extension, issues);
  const { sidecars } = extension;
  const prompts = await readPrompts(sidecars.prompts, packageDir, registryName, issues);
  const resources = await readResources(sidecars.resources, packageDir, issues);
  const workflows = await readWorkflows(sidecars.workflows, packageDir, registryName, tools, issues);
  const runtimes = await readRuntimes(extension.runtimes, packageDir, files, issues);
  checkBody(body, issues);
  return {
    name,
    registryName,
    version: extension.version,
    versionDefaulted: extension.versionDefaulted,
    description: fields.description ?? '',
    license: fields.license,
    compatibility: fields.compatibility,
    allowedTools: fields.allowedTools,
    metadata: fields.metadata,
    metadataStrings: projectMetadataStrings(fields.metadata),
    tags: extension.tags,
    searchHint: extension.searchHint,
    searchAliases: extension.searchAliases,
    layer: extension.layer,
    ...policy,
    depends,
    tools,
    toolGroups,
    prompts,
    resources,
    workflows,
    runtimes,
    instructionOnly: tools.length === 0,
    files,
    metadataFiles: files.filter((file) => /^metadata\/[^/]+\.md$/.test(file)),
    body,
  };
}

/**
 * Seed 004: the tools file named by `metadata.dcc-mcp.tools` (or an unreferenced tools.yaml, with a warning);
 * without one, a package carrying `metadata.dcc-mcp` gets one tool per script and any other package has none (its
 * scripts are files for the agent to read).
 */
async function readTools(
  packageDir: string,
  files: string[],
  registryName: string,
  description: string,
  extension: Awaited<ReturnType<typeof checkDccMcp>>,
  issues: IssueList,
): Promise<{ tools: ScriptTool[]; groups: ToolGroup[] }> {
  const scripts = entryPointScripts(files);
  let toolsFile = extension.toolsFile;
  if (!extension.toolsDeclared && files.includes('tools.yaml')) {
    toolsFile = 'tools.yaml';
    issues.warning(
      'definition',
      SKILL_MD,
      '/metadata',
      'tools.yaml is read although SKILL.md does not reference it (metadata.dcc-mcp.tools)',
      'Reference it: metadata:\n  dcc-mcp:\n    tools: tools.yaml',
    );
  }
  if (toolsFile !== null) {
    const { drafts, groups } = await readToolsFile(packageDir, toolsFile, extension.groupsFile, issues);
    return { tools: finishDeclaredTools(drafts, registryName, scripts, toolsFile, issues), groups };
  }
  if (extension.toolsDeclared || !extension.present) return { tools: [], groups: [] };
  return { tools: toolsFromScripts(scripts, registryName, description, issues), groups: [] };
}

async function readDependsFile(packageDir: string, files: string[], registryName: string, issues: IssueList): Promise<SkillDependency[]> {
  if (!files.includes(DEPENDS_FILE)) return [];
  const text = await readFile(join(packageDir, DEPENDS_FILE), 'utf8').catch(() => null);
  if (text === null) {
    issues.error('files', DEPENDS_FILE, '', `${DEPENDS_FILE} cannot be read`, 'Check the file permissions.');
    return [];
  }
  const parsed = parseYamlText(text, DEPENDS_FILE, 0, issues);
  if (!parsed.ok) return [];
  return parseDepends(parsed.value, DEPENDS_FILE, '', registryName, issues);
}

function mergeDepends(fromSkillMd: SkillDependency[], fromFile: SkillDependency[], issues: IssueList): SkillDependency[] {
  const merged = [...fromSkillMd];
  for (const dependency of fromFile) {
    const other = merged.find((candidate) => candidate.name === dependency.name);
    if (other === undefined) merged.push(dependency);
    else if (other.range !== dependency.range) {
      issues.warning(
        'definition',
        DEPENDS_FILE,
        '',
        `${DEPENDS_FILE} gives '${dependency.name}' the range '${dependency.range}' but SKILL.md gives '${other.range}'; SKILL.md's is used`,
        'Declare each dependency in one place, or give both the same range.',
      );
    }
  }
  return merged;
}

function checkBody(body: string, issues: IssueList): void {
  const lines = body.trim() === '' ? 0 : body.trimEnd().split('\n').length;
  if (lines === 0) {
    issues.warning(
      'docs',
      SKILL_MD,
      '',
      'SKILL.md has no instructions after its frontmatter',
      'Write what the skill is for and how the agent uses it, in Markdown, after the frontmatter.',
    );
  } else if (lines > BODY_MAX_LINES) {
    issues.warning(
      'docs',
      SKILL_MD,
      '',
      `SKILL.md body is ${lines} lines long; keep it under ${BODY_MAX_LINES}`,
      'Move detailed material into references/ and link it from SKILL.md (progressive disclosure).',
    );
  }
}
