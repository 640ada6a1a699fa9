import { toJsonPointer, type IssueList } from '#skill-loader/issues.js';
import { qualifiedToolName, TOOL_NAME_PATTERN } from './names.js';
import { interpreterFor, lookUpScript, notExecutableReason, type ScriptFile } from './scripts.js';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_SECONDS, PERMISSIVE_INPUT_SCHEMA, type ToolDraft } from './tool-entry.js';
import type { ScriptTool } from './types.js';

/** Give each checked tools.yaml entry its qualified name and its script (seed 004's lookup order). */
export function finishDeclaredTools(
  drafts: ToolDraft[],
  registryName: string,
  scripts: ScriptFile[],
  file: string,
  issues: IssueList,
): ScriptTool[] {
  const tools = drafts.map((draft): ScriptTool => {
    const { index, sourceFile, sourceFileRefused, ...fields } = draft;
    const base = { ...fields, qualifiedName: qualifiedToolName(registryName, draft.name) };
    const pointer = toJsonPointer(['tools', index]);
    if (sourceFileRefused) {
      // The error about source_file is already in the report; no fallback to another script.
      return { ...base, scriptFile: null, script: null, notExecutableReason: `source_file of tool '${draft.name}' is not usable` };
    }
    const lookup = lookUpScript(draft.name, sourceFile, scripts);
    if (!lookup.found) {
      issues.warning(
        'handler',
        file,
        pointer,
        `tool '${draft.name}' is listed but not executable: ${lookup.reason}`,
        `Add source_file: scripts/${draft.name}.py (or .sh, .js) to the entry, or a script named after the tool.`,
      );
      return { ...base, scriptFile: null, script: null, notExecutableReason: lookup.reason };
    }
    if (lookup.alternatives.length > 0) {
      issues.warning(
        'handler',
        file,
        pointer,
        `several scripts match tool '${draft.name}': ${lookup.path} is used, not ${lookup.alternatives.join(', ')}`,
        `Name the script with source_file: ${lookup.path}.`,
      );
    }
    return {
      ...base,
      ...scriptFields(
        lookup.path,
        `tool '${draft.name}'`,
        file,
        lookup.rule === 'source_file' ? `${pointer}/source_file` : pointer,
        issues,
      ),
    };
  });
  checkNextToolReferences(tools, drafts, registryName, file, issues);
  return tools;
}

/**
 * Tools of a package that carries `metadata.dcc-mcp` but no tools file: one per entry-point script, named after its
 * stem (hyphens read as underscores), with the permissive input schema and the skill's description.
 */
export function toolsFromScripts(scripts: ScriptFile[], registryName: string, skillDescription: string, issues: IssueList): ScriptTool[] {
  const tools: ScriptTool[] = [];
  for (const script of scripts) {
    const name = script.stem.replace(/-/g, '_');
    if (!TOOL_NAME_PATTERN.test(name)) {
      issues.warning(
        'handler',
        script.path,
        '',
        `script ${script.path} does not give a tool name: '${name}' must match ${TOOL_NAME_PATTERN.source}`,
        'Rename the script to <tool_name>.<ext> in snake_case, or declare the tools in tools.yaml.',
      );
      continue;
    }
    if (tools.some((tool) => tool.name === name)) {
      issues.warning(
        'handler',
        script.path,
        '',
        `script ${script.path} names tool '${name}' again (ignored)`,
        'Keep one script per tool name, or declare the tools in tools.yaml with source_file.',
      );
      continue;
    }
    tools.push({
      name,
      qualifiedName: qualifiedToolName(registryName, name),
      description: skillDescription,
      inputSchema: { ...PERMISSIVE_INPUT_SCHEMA },
      outputSchema: null,
      readOnly: false,
      destructive: false,
      idempotent: false,
      timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
      retries: DEFAULT_RETRIES,
      searchAliases: [],
      nextTools: { onSuccess: [], onFailure: [] },
      annotations: {},
      examples: [],
      group: null,
      deferLoading: false,
      taskSupport: null,
      ...scriptFields(script.path, `tool '${name}'`, script.path, '', issues),
    });
  }
  return tools;
}

function scriptFields(
  path: string,
  label: string,
  file: string,
  pointer: string,
  issues: IssueList,
): Pick<ScriptTool, 'scriptFile' | 'script' | 'notExecutableReason'> {
  const interpreter = interpreterFor(path);
  if (interpreter !== null) return { scriptFile: path, script: { path, interpreter }, notExecutableReason: null };
  const reason = notExecutableReason(path) ?? '';
  issues.warning(
    'handler',
    file,
    pointer,
    `${label} is listed but not executable on this platform: ${reason}`,
    'Provide a .py, .sh or .js entry point for the tool if it should run on the registry; otherwise it stays listed for its DCC host.',
  );
  return { scriptFile: path, script: null, notExecutableReason: reason };
}

function checkNextToolReferences(tools: ScriptTool[], drafts: ToolDraft[], registryName: string, file: string, issues: IssueList): void {
  const own = new Set(tools.map((tool) => tool.qualifiedName));
  const prefix = `${registryName}__`;
  tools.forEach((tool, position) => {
    for (const [key, names] of [
      ['on-success', tool.nextTools.onSuccess],
      ['on-failure', tool.nextTools.onFailure],
    ] as const) {
      for (const name of names) {
        if (!name.startsWith(prefix) || own.has(name)) continue;
        issues.warning(
          'definition',
          file,
          toJsonPointer(['tools', drafts[position].index, 'next-tools', key]),
          `tool '${tool.name}': next-tools.${key} names '${name}', which this skill does not declare`,
          `Declared tools: ${[...own].join(', ')}.`,
        );
      }
    }
  });
}
