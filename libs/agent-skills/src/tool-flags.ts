import { closest } from '#skill-loader/definition-messages.js';
import { describeValue } from '#skill-loader/describe.js';
import { toJsonPointer, type IssueList } from '#skill-loader/issues.js';
import { QUALIFIED_TOOL_NAME_PATTERN } from './names.js';
import { isMapping } from './yaml-text.js';

/** Where a tool entry sits in its tools file, for issues. */
export interface EntrySite {
  file: string;
  index: number;
  /** `tool 'create_sphere'` (or `tools[2]` before the name is known). */
  label: string;
}

/** JSON pointer to a key of a tool entry. */
export function entryPointer(site: EntrySite, ...keys: (string | number)[]): string {
  return toJsonPointer(['tools', site.index, ...keys]);
}

/** Shorthand annotation keys on the entry itself, and the MCP ToolAnnotations key each stands for. */
export const SHORTHAND_HINTS: Readonly<Record<string, string>> = {
  read_only_hint: 'readOnlyHint',
  destructive_hint: 'destructiveHint',
  idempotent_hint: 'idempotentHint',
  open_world_hint: 'openWorldHint',
  deferred_hint: 'deferredHint',
};
/** Keys of a nested `annotations:` map (snake_case as in seed 004, or MCP camelCase), to their MCP key. */
const ANNOTATION_KEYS: Readonly<Record<string, string>> = {
  ...SHORTHAND_HINTS,
  readOnlyHint: 'readOnlyHint',
  destructiveHint: 'destructiveHint',
  idempotentHint: 'idempotentHint',
  openWorldHint: 'openWorldHint',
  deferredHint: 'deferredHint',
  title: 'title',
};

/** Behaviour flags of a tool and its MCP annotations. */
export interface ToolFlags {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  annotations: Record<string, unknown>;
}

/**
 * Read `read_only`/`destructive`/`idempotent` and the annotations. The nested `annotations:` map wins whole-map
 * over shorthand hint keys (seed 004, issue #344); `deferred_hint` is a dcc-mcp extension that rides in `_meta`,
 * never in MCP annotations, so it is accepted and left out. An explicit flag wins over its hint.
 */
export function readToolFlags(entry: Record<string, unknown>, site: EntrySite, issues: IssueList): ToolFlags {
  const shorthandKeys = Object.keys(SHORTHAND_HINTS).filter((key) => key in entry);
  let declared: Record<string, unknown> = {};
  if (entry.annotations !== undefined) {
    if (shorthandKeys.length > 0) {
      issues.warning(
        'definition',
        site.file,
        entryPointer(site, shorthandKeys[0]),
        `${site.label}: shorthand ${shorthandKeys.join(', ')} ignored because an annotations map is declared`,
        'Move the hints into annotations: (the nested map wins whole-map, not per field).',
      );
    }
    declared = readAnnotationMap(entry.annotations, site, issues);
  } else {
    for (const key of shorthandKeys) declared[SHORTHAND_HINTS[key]] = checkHint(entry[key], site, [key], issues);
  }
  const annotations = Object.fromEntries(Object.entries(declared).filter(([key, value]) => key !== 'deferredHint' && value !== undefined));
  const flag = (field: string, hint: string): boolean => {
    const explicit = entry[field];
    const fromHint = annotations[hint];
    if (explicit === undefined) return fromHint === true;
    if (typeof explicit !== 'boolean') {
      issues.error(
        'definition',
        site.file,
        entryPointer(site, field),
        `${site.label}: ${field} must be a boolean; found ${describeValue(explicit)}`,
        `Write ${field}: true or ${field}: false.`,
      );
      return fromHint === true;
    }
    if (typeof fromHint === 'boolean' && fromHint !== explicit) {
      issues.warning(
        'definition',
        site.file,
        entryPointer(site, field),
        `${site.label}: ${field} is ${explicit} but its annotation says ${fromHint}; ${field} is used`,
        'Make the flag and the annotation agree.',
      );
    }
    return explicit;
  };
  const flags = {
    readOnly: flag('read_only', 'readOnlyHint'),
    destructive: flag('destructive', 'destructiveHint'),
    idempotent: flag('idempotent', 'idempotentHint'),
    annotations,
  };
  if (flags.readOnly && flags.destructive) {
    issues.warning(
      'definition',
      site.file,
      entryPointer(site, 'destructive'),
      `${site.label} is both read-only and destructive`,
      'A read-only tool changes nothing: set destructive: false, or read_only: false.',
    );
  }
  return flags;
}

function readAnnotationMap(value: unknown, site: EntrySite, issues: IssueList): Record<string, unknown> {
  if (!isMapping(value)) {
    issues.error(
      'definition',
      site.file,
      entryPointer(site, 'annotations'),
      `${site.label}: annotations must be a mapping; found ${describeValue(value)}`,
      'Write annotations: { read_only_hint: true, ... }.',
    );
    return {};
  }
  const declared: Record<string, unknown> = {};
  for (const [key, hint] of Object.entries(value)) {
    const mcpKey = ANNOTATION_KEYS[key];
    if (mcpKey === undefined) {
      const suggestion = closest(key, Object.keys(SHORTHAND_HINTS));
      issues.warning(
        'definition',
        site.file,
        entryPointer(site, 'annotations', key),
        `${site.label}: annotation '${key}' is not one this registry reads (ignored)`,
        suggestion ? `Did you mean '${suggestion}'?` : `Known annotations: ${Object.keys(ANNOTATION_KEYS).join(', ')}.`,
      );
    } else if (mcpKey === 'title') {
      if (typeof hint === 'string') declared.title = hint;
      else
        issues.error(
          'definition',
          site.file,
          entryPointer(site, 'annotations', key),
          `${site.label}: annotation title must be a string; found ${describeValue(hint)}`,
          'Write title: <short name>.',
        );
    } else {
      declared[mcpKey] = checkHint(hint, site, ['annotations', key], issues);
    }
  }
  return declared;
}

function checkHint(value: unknown, site: EntrySite, keys: string[], issues: IssueList): boolean | undefined {
  if (typeof value === 'boolean') return value;
  issues.error(
    'definition',
    site.file,
    entryPointer(site, ...keys),
    `${site.label}: ${keys.join('.')} must be a boolean; found ${describeValue(value)}`,
    'Write true or false without quotes.',
  );
  return undefined;
}

/** `next-tools` of a tool: qualified names to suggest after success and after failure. */
export function readNextTools(value: unknown, site: EntrySite, issues: IssueList): { onSuccess: string[]; onFailure: string[] } {
  const next = { onSuccess: [] as string[], onFailure: [] as string[] };
  if (value === undefined || value === null) return next;
  if (!isMapping(value)) {
    issues.error(
      'definition',
      site.file,
      entryPointer(site, 'next-tools'),
      `${site.label}: next-tools must be a mapping with on-success and on-failure lists; found ${describeValue(value)}`,
      'Write next-tools: { on-success: [skill__tool], on-failure: [dcc_diagnostics__screenshot] }.',
    );
    return next;
  }
  for (const [key, list] of Object.entries(value)) {
    const target = key === 'on-success' ? next.onSuccess : key === 'on-failure' ? next.onFailure : null;
    if (target === null) {
      const suggestion = closest(key.replace(/_/g, '-'), ['on-success', 'on-failure']);
      issues.warning(
        'definition',
        site.file,
        entryPointer(site, 'next-tools', key),
        `${site.label}: next-tools.${key} is not read (ignored)`,
        suggestion ? `Did you mean '${suggestion}'?` : 'Use on-success and on-failure.',
      );
      continue;
    }
    const names = Array.isArray(list) ? list : [list];
    names.forEach((name, position) => {
      if (typeof name === 'string' && QUALIFIED_TOOL_NAME_PATTERN.test(name)) target.push(name);
      else {
        issues.warning(
          'definition',
          site.file,
          entryPointer(site, 'next-tools', key, ...(Array.isArray(list) ? [position] : [])),
          `${site.label}: next-tools.${key} entry ${describeValue(name)} is not a qualified tool name <skill>__<tool> (dropped)`,
          'Name tools as <registry_skill_name>__<tool_name>, e.g. dcc_diagnostics__screenshot (no dots, no hyphens).',
        );
      }
    });
  }
  return next;
}
