import { PROMPT_PLACEHOLDER, type StoredPrompt, type StoredPromptArgument } from '#contracts/index.js';
import { closest } from '#skill-loader/definition-messages.js';
import { describeValue } from '#skill-loader/describe.js';
import type { IssueList } from '#skill-loader/issues.js';
import { TOOL_NAME_PATTERN, qualifiedToolName } from './names.js';
import { readSidecarYaml, sidecarEntries } from './sidecar-files.js';
import { isMapping } from './yaml-text.js';

const PROMPT_KEYS = ['name', 'title', 'description', 'arguments', 'template'];
const ARGUMENT_KEYS = ['name', 'description', 'required'];
const ARGUMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_PROMPTS = 100;
const MAX_TEMPLATE_CHARACTERS = 64 * 1024;

/**
 * The prompt templates of the files `metadata.dcc-mcp.prompts` names (seed 004, dcc-mcp-core's prompts primitive):
 * each entry `name`, `description`, `arguments` (`name`, `description`, `required`) and a `template` whose
 * `{{argument}}` placeholders prompts/get fills in. Served as MCP prompts named `<skill>__<name>`.
 */
export async function readPrompts(files: string[], packageDir: string, registryName: string, issues: IssueList): Promise<StoredPrompt[]> {
  const prompts: StoredPrompt[] = [];
  for (const file of files) {
    const document = await readSidecarYaml(packageDir, file, issues);
    if (isMapping(document) && document.prompts === undefined && document.workflows !== undefined) {
      issues.warning(
        'definition',
        file,
        '/workflows',
        `${file} lists workflows but no prompts: prompts are not generated from workflows here (workflows run as executions)`,
        'Declare workflows under metadata.dcc-mcp.workflows; write prompts under prompts:.',
      );
      continue;
    }
    for (const { entry, at } of sidecarEntries(document, 'prompts', file, issues)) {
      const prompt = checkPrompt(entry, file, at, registryName, issues);
      if (prompt === null) continue;
      if (prompts.some((other) => other.name === prompt.name)) {
        issues.error(
          'definition',
          file,
          `${at}/name`,
          `prompt '${prompt.name}' is declared more than once`,
          'Give every prompt its own name.',
        );
        continue;
      }
      if (prompts.length === MAX_PROMPTS) {
        issues.error('policy', file, at, `more than ${MAX_PROMPTS} prompts`, `Keep at most ${MAX_PROMPTS} prompts in one package.`);
        return prompts;
      }
      prompts.push(prompt);
    }
  }
  return prompts;
}

function checkPrompt(raw: unknown, file: string, at: string, registryName: string, issues: IssueList): StoredPrompt | null {
  if (!isMapping(raw)) {
    issues.error(
      'definition',
      file,
      at,
      `a prompt must be a mapping; found ${describeValue(raw)}`,
      'Write "- name: ..." with description and template.',
    );
    return null;
  }
  const name = raw.name;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    issues.error(
      'definition',
      file,
      `${at}/name`,
      `prompt name must be snake_case matching ${TOOL_NAME_PATTERN.source}; found ${describeValue(name)}`,
      'Name it like a tool, e.g. "name: review_scene": it is served as <skill>__<name>.',
    );
    return null;
  }
  for (const key of Object.keys(raw)) {
    if (PROMPT_KEYS.includes(key)) continue;
    const suggestion = closest(key, PROMPT_KEYS);
    issues.warning(
      'definition',
      file,
      `${at}/${key}`,
      `prompt '${name}': key '${key}' is not read (ignored)`,
      suggestion ? `Did you mean '${suggestion}'?` : `Known keys: ${PROMPT_KEYS.join(', ')}.`,
    );
  }
  const template = raw.template;
  if (typeof template !== 'string' || template.trim() === '') {
    issues.error(
      'definition',
      file,
      `${at}/template`,
      `prompt '${name}' has no template text; found ${describeValue(template)}`,
      'Write the prompt under template: | (a YAML block).',
    );
    return null;
  }
  if (template.length > MAX_TEMPLATE_CHARACTERS) {
    issues.error(
      'policy',
      file,
      `${at}/template`,
      `prompt '${name}': template is ${template.length} characters; at most ${MAX_TEMPLATE_CHARACTERS}`,
      'Shorten it; put reference material in references/.',
    );
    return null;
  }
  const description = optionalText(raw.description, `prompt '${name}': description`, file, `${at}/description`, issues);
  if (description === null) {
    issues.warning(
      'definition',
      file,
      `${at}/description`,
      `prompt '${name}' has no description`,
      'Say what the prompt is for: hosts show it in their prompt picker.',
    );
  }
  const args = checkArguments(raw.arguments, name, file, `${at}/arguments`, issues);
  const declared = new Set(args.map((argument) => argument.name));
  const undeclared = [...new Set([...template.matchAll(PROMPT_PLACEHOLDER)].map((match) => match[1] as string))].filter(
    (placeholder) => !declared.has(placeholder),
  );
  if (undeclared.length > 0) {
    issues.error(
      'definition',
      file,
      `${at}/template`,
      `prompt '${name}': template uses ${undeclared.map((placeholder) => `{{${placeholder}}}`).join(', ')}, which arguments does not declare`,
      `Declare ${undeclared.join(', ')} under arguments:, or correct the placeholder.`,
    );
    return null;
  }
  return {
    name,
    qualified_name: qualifiedToolName(registryName, name),
    title: optionalText(raw.title, `prompt '${name}': title`, file, `${at}/title`, issues),
    description: description ?? '',
    arguments: args,
    template,
  };
}

function checkArguments(value: unknown, prompt: string, file: string, at: string, issues: IssueList): StoredPromptArgument[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    issues.error(
      'definition',
      file,
      at,
      `prompt '${prompt}': arguments must be a list; found ${describeValue(value)}`,
      'Write arguments: [{ name: width, required: true }].',
    );
    return [];
  }
  const args: StoredPromptArgument[] = [];
  value.forEach((raw, index) => {
    const where = `${at}/${index}`;
    if (!isMapping(raw) || typeof raw.name !== 'string' || !ARGUMENT_NAME.test(raw.name)) {
      issues.error(
        'definition',
        file,
        where,
        `prompt '${prompt}': arguments[${index}] needs a name of letters, digits and _`,
        'Write "- name: width".',
      );
      return;
    }
    const name = raw.name;
    for (const key of Object.keys(raw)) {
      if (!ARGUMENT_KEYS.includes(key))
        issues.warning(
          'definition',
          file,
          `${where}/${key}`,
          `prompt '${prompt}': argument '${name}': key '${key}' is not read (ignored)`,
          `Known keys: ${ARGUMENT_KEYS.join(', ')}.`,
        );
    }
    if (raw.required !== undefined && typeof raw.required !== 'boolean') {
      issues.error(
        'definition',
        file,
        `${where}/required`,
        `prompt '${prompt}': argument '${name}': required must be true or false; found ${describeValue(raw.required)}`,
        'Write required: true.',
      );
    }
    if (args.some((other) => other.name === name)) {
      issues.error('definition', file, where, `prompt '${prompt}': argument '${name}' is declared twice`, 'Declare each argument once.');
      return;
    }
    args.push({
      name,
      description: optionalText(
        raw.description,
        `prompt '${prompt}': argument '${name}': description`,
        file,
        `${where}/description`,
        issues,
      ),
      required: raw.required === true,
    });
  });
  return args;
}

function optionalText(value: unknown, field: string, file: string, at: string, issues: IssueList): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && value.trim() !== '') return value;
  issues.error('definition', file, at, `${field} must be text; found ${describeValue(value)}`, 'Write it as a string.');
  return null;
}
