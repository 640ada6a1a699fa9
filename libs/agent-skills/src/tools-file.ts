import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { closest } from '#skill-loader/definition-messages.js';
import { describeValue } from '#skill-loader/describe.js';
import { toJsonPointer, type IssueList } from '#skill-loader/issues.js';
import { checkToolEntry, type ToolDraft } from './tool-entry.js';
import type { ToolGroup } from './types.js';
import { isMapping, parseYamlText } from './yaml-text.js';

const TOP_LEVEL_KEYS = ['tools', 'groups'];
const GROUP_KEYS = ['name', 'description', 'default_active', 'tools'];

/**
 * Read a tools file (tools.yaml): `tools:` entries checked one by one (a bad entry does not hide the others) and
 * optional `groups:`. Groups may also come from the sibling file named by `metadata.dcc-mcp.groups`.
 */
export async function readToolsFile(
  packageDir: string,
  file: string,
  groupsFile: string | null,
  issues: IssueList,
): Promise<{ drafts: ToolDraft[]; groups: ToolGroup[] }> {
  const document = await readYamlMapping(packageDir, file, issues);
  if (document === null) return { drafts: [], groups: [] };
  for (const key of Object.keys(document)) {
    if (TOP_LEVEL_KEYS.includes(key)) continue;
    const suggestion = closest(key, TOP_LEVEL_KEYS);
    issues.warning(
      'definition',
      file,
      toJsonPointer([key]),
      `${file} key '${key}' is not read by this registry (ignored)`,
      suggestion ? `Did you mean '${suggestion}'?` : 'A tools file holds tools: and groups:.',
    );
  }
  const entries = document.tools ?? [];
  if (!Array.isArray(entries)) {
    issues.error(
      'definition',
      file,
      '/tools',
      `tools must be a list of tool entries; found ${describeValue(entries)}`,
      'Write tools: followed by "- name: ..." entries.',
    );
    return { drafts: [], groups: [] };
  }
  const drafts: ToolDraft[] = [];
  for (const [index, entry] of entries.entries()) {
    const draft = await checkToolEntry(entry, index, file, packageDir, issues);
    if (draft === null) continue;
    if (drafts.some((other) => other.name === draft.name)) {
      issues.error(
        'definition',
        file,
        toJsonPointer(['tools', index, 'name']),
        `tool name '${draft.name}' is declared more than once`,
        'Tool names must be unique in the skill: rename or remove the duplicate.',
      );
      continue;
    }
    drafts.push(draft);
  }
  const groups = readGroups(document.groups, file, issues);
  if (groupsFile !== null) {
    const groupsDocument = await readYamlMapping(packageDir, groupsFile, issues);
    if (groupsDocument !== null) groups.push(...readGroups(groupsDocument.groups, groupsFile, issues));
  }
  checkGroupReferences(drafts, groups, file, issues);
  return { drafts, groups: settleMembership(drafts, groups, file, issues) };
}

async function readYamlMapping(packageDir: string, file: string, issues: IssueList): Promise<Record<string, unknown> | null> {
  let text: string;
  try {
    text = await readFile(join(packageDir, file), 'utf8');
  } catch (cause) {
    issues.error('files', file, '', `${file} cannot be read: ${String(cause)}`, 'Check that the file exists and is readable.');
    return null;
  }
  const parsed = parseYamlText(text, file, 0, issues);
  if (!parsed.ok) return null;
  if (parsed.value === null || parsed.value === undefined) return {};
  if (!isMapping(parsed.value)) {
    issues.error(
      'definition',
      file,
      '',
      `${file} must be a YAML mapping with a tools: list; found ${describeValue(parsed.value)}`,
      'Start the file with "tools:".',
    );
    return null;
  }
  return parsed.value;
}

function readGroups(value: unknown, file: string, issues: IssueList): ToolGroup[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    issues.error(
      'definition',
      file,
      '/groups',
      `groups must be a list; found ${describeValue(value)}`,
      'Write groups: [{ name: modeling, tools: [...] }].',
    );
    return [];
  }
  const groups: ToolGroup[] = [];
  value.forEach((group, index) => {
    if (!isMapping(group) || typeof group.name !== 'string' || group.name === '') {
      issues.error('definition', file, toJsonPointer(['groups', index]), `groups[${index}] has no name`, 'Give every group a name.');
      return;
    }
    for (const key of Object.keys(group).filter((key) => !GROUP_KEYS.includes(key))) {
      issues.warning(
        'definition',
        file,
        toJsonPointer(['groups', index, key]),
        `group '${group.name}': key '${key}' is not read by this registry (ignored)`,
        `Known keys: ${GROUP_KEYS.join(', ')}.`,
      );
    }
    if (group.default_active !== undefined && typeof group.default_active !== 'boolean') {
      issues.error(
        'definition',
        file,
        toJsonPointer(['groups', index, 'default_active']),
        `group '${group.name}': default_active must be a boolean; found ${describeValue(group.default_active)}`,
        'Write default_active: true or false.',
      );
    }
    const tools = Array.isArray(group.tools) ? group.tools.filter((tool): tool is string => typeof tool === 'string') : [];
    groups.push({
      name: group.name,
      description: typeof group.description === 'string' ? group.description : '',
      defaultActive: group.default_active === true,
      tools,
    });
  });
  return groups;
}

/**
 * One group per tool: a tool's `group:` wins; a tool without one joins the first group whose `tools:` lists it. Each
 * group's `tools` ends as exactly its members (a listed name that is no tool is a warning).
 */
function settleMembership(drafts: ToolDraft[], groups: ToolGroup[], file: string, issues: IssueList): ToolGroup[] {
  const names = new Set(drafts.map((draft) => draft.name));
  for (const group of groups) {
    for (const listed of group.tools.filter((tool) => !names.has(tool))) {
      issues.warning(
        'definition',
        file,
        '/groups',
        `group '${group.name}' lists '${listed}', which is not a tool of this skill (ignored)`,
        `Tools: ${[...names].join(', ') || 'none'}.`,
      );
    }
  }
  for (const draft of drafts) {
    if (draft.group === null) draft.group = groups.find((group) => group.tools.includes(draft.name))?.name ?? null;
  }
  const seen = new Set<string>();
  return groups
    .filter((group) => !seen.has(group.name) && seen.add(group.name))
    .map((group) => ({ ...group, tools: drafts.filter((draft) => draft.group === group.name).map((draft) => draft.name) }));
}

function checkGroupReferences(drafts: ToolDraft[], groups: ToolGroup[], file: string, issues: IssueList): void {
  const names = groups.map((group) => group.name);
  for (const draft of drafts) {
    if (draft.group === null || names.includes(draft.group)) continue;
    issues.error(
      'definition',
      file,
      toJsonPointer(['tools', draft.index, 'group']),
      `tool '${draft.name}' names group '${draft.group}', which is not declared`,
      names.length > 0 ? `Declared groups: ${names.join(', ')}.` : 'Declare it under groups: (in tools.yaml or the groups file).',
    );
  }
}
