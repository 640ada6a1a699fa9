import { SkillCatalogError, skillEntry } from '@modelcontextprotocol/server/ext/skills';
import { IssueList } from './issues.js';

/** Front matter of SKILL.md (agentskills.io style): the fields the loader reads. */
export interface SkillMarkdownFrontMatter {
  fields: Record<string, string>;
}

/**
 * Read the `---` delimited front matter at the top of SKILL.md. Only flat `key: value` pairs (plain or
 * quoted scalars, and `|`/`>` block scalars) are understood: that is all the format uses.
 */
export function parseFrontMatter(markdown: string): SkillMarkdownFrontMatter | null {
  const lines = markdown.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return null;
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
  if (end < 0) return null;
  const fields: Record<string, string> = {};
  for (let index = 1; index < end; index++) {
    const match = /^([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(lines[index]);
    if (!match) continue;
    const [, key, rest] = match;
    if (rest === '|' || rest === '>' || rest === '|-' || rest === '>-') {
      const block: string[] = [];
      while (index + 1 < end && (/^\s+\S/.test(lines[index + 1]) || lines[index + 1].trim() === '')) block.push(lines[++index].trim());
      fields[key] = (rest.startsWith('|') ? block.join('\n') : block.join(' ')).trim();
    } else {
      fields[key] = unquote(rest.replace(/\s+#.*$/, '').trim());
    }
  }
  return { fields };
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  return value;
}

/** Check SKILL.md's front matter against definition.json (warnings only: the file is documentation). */
export function checkSkillMarkdown(markdown: string, definitionName: string | undefined, issues: IssueList): void {
  const frontMatter = parseFrontMatter(markdown);
  const example = `---\nname: ${definitionName ? agentSkillsSpelling(definitionName) : '<skill-name>'}\ndescription: <one line>\n---`;
  if (!frontMatter) {
    issues.warning(
      'docs',
      'SKILL.md',
      '',
      'SKILL.md has no front matter (a leading --- block with name and description)',
      `Start SKILL.md with:\n${example}`,
    );
    return;
  }
  const { name, description } = frontMatter.fields;
  if (name === undefined || name === '') {
    issues.warning(
      'docs',
      'SKILL.md',
      '/name',
      "SKILL.md front matter has no 'name'",
      `Add "name: ${definitionName ? agentSkillsSpelling(definitionName) : '<skill-name>'}" to the front matter.`,
    );
  } else if (definitionName !== undefined && name === definitionName && name !== agentSkillsSpelling(name)) {
    issues.warning(
      'docs',
      'SKILL.md',
      '/name',
      `SKILL.md front matter name '${name}' is not an Agent Skills name (no underscores), so the MCP Skills extension (skills/list) does not list this package; its tool is served as usual`,
      `Set "name: ${agentSkillsSpelling(name)}" in the front matter.`,
    );
  } else if (definitionName !== undefined && name !== agentSkillsSpelling(definitionName) && name !== definitionName) {
    issues.warning(
      'docs',
      'SKILL.md',
      '/name',
      `SKILL.md front matter name '${name}' differs from definition.json name '${definitionName}'`,
      `Set "name: ${agentSkillsSpelling(definitionName)}" in the front matter (the Agent Skills spelling, which MCP Skills extension clients require).`,
    );
  }
  if (description === undefined || description === '') {
    issues.warning(
      'docs',
      'SKILL.md',
      '/description',
      "SKILL.md front matter has no 'description'",
      'Add "description: <what the skill does, one line>" to the front matter.',
    );
  }
}

/**
 * A catalog name in the Agent Skills spelling (`export_bom` → `export-bom`): the name a TypeScript package's SKILL.md
 * carries, so that the file served through the MCP Skills extension is a valid entry as written. The same mapping as
 * libs/agent-skills toAgentSkillsName, which re-exports this one.
 */
export function agentSkillsSpelling(catalogName: string): string {
  return catalogName.replace(/_/g, '-');
}

/**
 * Whether Agent Skills clients can read SKILL.md as written: the MCP SDK's reader, the one the registry's
 * skills/list (SEP-2640) uses, so a package it would leave out is told so at registration. A warning: the
 * skill's tool is served regardless. Front matter that is missing or names no valid name is reported above.
 */
export async function checkSkillEntry(markdown: string, issues: IssueList): Promise<void> {
  const name = parseFrontMatter(markdown)?.fields.name;
  if (!name || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) return;
  try {
    await skillEntry(`skills/${name}`, { 'SKILL.md': new TextEncoder().encode(markdown) });
  } catch (error) {
    if (!(error instanceof SkillCatalogError)) throw error;
    issues.warning(
      'docs',
      'SKILL.md',
      '',
      `SKILL.md is not a valid Agent Skills entry as MCP Skills clients read it (${error.problems.map((problem) => problem.message).join('; ')}), so skills/list leaves this package out; its tool is served as usual`,
      'Keep the front matter valid YAML: quote a value that contains ": " or starts with a special character (description: "…").',
    );
  }
}
