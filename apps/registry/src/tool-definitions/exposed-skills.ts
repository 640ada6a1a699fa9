import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { isExecutable, taskSupportOf, type TaskSupport } from '#contracts/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { type SkillVersionRecord, currentVersion } from '../catalog/skill-records.js';

/** Which skills an agent is shown as tools; every field narrows the set. */
export interface ToolFilter {
  domain?: string;
  agent?: string;
  /** Skills whose current version needs phase ≤ this. */
  phase?: number;
  /** All must be present. */
  tags?: string[];
}

/**
 * A tool offered to agents: a TypeScript skill's current version as it is, or one tool of a
 * multi-tool (Agent Skills) version seen as a version whose name is `<skill>__<tool>` and whose
 * description, schemas, hints and limits are the tool's — so every tool format reads one shape.
 */
export type ExposedSkill = SkillVersionRecord & {
  inputSchema: Record<string, unknown>;
  /** The skill the tool belongs to (what executions name). */
  skillName: string;
  /** The tool of a multi-tool version; null for a TypeScript skill's handler. */
  toolName: string | null;
  /** Multi-tool versions: the tools suggested next (seed 004's `next-tools`). */
  nextTools: { on_success: string[]; on_failure: string[] } | null;
  /** MCP ToolAnnotations, camelCase, from definition.json or tools.yaml. */
  annotations: ToolHints;
  /** The tool's group in its skill (seed 004 "Tool Groups"); null when ungrouped. */
  toolGroup: string | null;
  /** seed 004's `defer-loading`. */
  deferLoading: boolean;
  /** MCP tasks: whether its calls may, must or must not be tasks (taskSupportOf). */
  taskSupport: TaskSupport;
};

/** MCP ToolAnnotations as the registry fills them: every hint explicit, a title when one was declared. */
interface ToolHints {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

const MAX_CACHED_FILTERS = 256;

/**
 * The skills agents see as tools — the current version of every ACTIVE or DEPRECATED skill — shared
 * by GET /v1/tool-definitions and the MCP endpoint, so both expose exactly the same set.
 *
 * Selections are remembered per catalog generation (the generation moves on every change on any
 * replica), so repeated tools/list calls and tool-definition exports cost a Map lookup.
 */
@Injectable()
export class ExposedSkills {
  private readonly selections = new LRUCache<string, ExposedSkill[]>({ max: MAX_CACHED_FILTERS });
  private generation = -1;

  constructor(private readonly catalog: SkillCatalog) {}

  /** The exposed skills passing `filter`, in name order. */
  list(filter: ToolFilter = {}): ExposedSkill[] {
    if (this.generation !== this.catalog.generation) {
      this.selections.clear();
      this.generation = this.catalog.generation;
    }
    const key = filterKey(filter);
    let selection = this.selections.get(key);
    if (!selection) {
      selection = this.catalog
        .all()
        .map(currentVersion)
        .filter((version) => matches(version, filter))
        .flatMap(exposedOf)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      this.selections.set(key, selection);
    }
    return selection;
  }

  /** One exposed tool by the name agents call (`<skill>` or `<skill>__<tool>`), if it passes `filter`. */
  find(name: string, filter: ToolFilter = {}): ExposedSkill | undefined {
    for (let at = -1; ;) {
      const skillName = at < 0 ? name : name.slice(0, at);
      const skill = this.catalog.get(skillName);
      if (skill) {
        const version = currentVersion(skill);
        const found = matches(version, filter) ? exposedOf(version).find((tool) => tool.name === name) : undefined;
        if (found) return found;
      }
      at = name.indexOf('__', at < 0 ? 0 : at + 1);
      if (at < 0) return undefined;
    }
  }

  /** The catalog generation the selections reflect (moves on every catalog change). */
  get catalogGeneration(): number {
    return this.catalog.generation;
  }
}

/**
 * Executable and describable as a tool: every framework needs an object input schema (the loader
 * refuses anything else for inputs, so this only guards against a hand-edited row).
 */
function exposedOf(version: SkillVersionRecord): ExposedSkill[] {
  return isExecutable(version.status) ? toolsOf(version) : [];
}

/** The tool `tool` (null: a TypeScript skill's handler) of `version` as exposed, whatever the version's status now. */
export function exposedToolOf(version: SkillVersionRecord, tool: string | null): ExposedSkill | null {
  return toolsOf(version).find((candidate) => candidate.toolName === tool) ?? null;
}

function toolsOf(version: SkillVersionRecord): ExposedSkill[] {
  if (version.format === 'typescript') {
    if (version.inputSchema === null || version.inputSchema.type !== 'object') return [];
    const { title, destructive, open_world, task_support } = version.exposure;
    return [
      {
        ...version,
        inputSchema: version.inputSchema,
        skillName: version.name,
        toolName: null,
        nextTools: null,
        annotations: {
          ...(title !== undefined ? { title } : {}),
          readOnlyHint: version.readOnly,
          destructiveHint: destructive ?? false,
          idempotentHint: version.idempotent,
          openWorldHint: open_world ?? false,
        },
        toolGroup: null,
        deferLoading: false,
        taskSupport: taskSupportOf(task_support, version.timeoutSeconds),
      },
    ];
  }
  return version.tools
    .filter((tool) => tool.script !== null && tool.input_schema.type === 'object')
    .map((tool) => ({
      ...version,
      name: tool.qualified_name,
      description: tool.description,
      inputSchema: tool.input_schema,
      outputSchema: tool.output_schema,
      readOnly: tool.read_only,
      idempotent: tool.idempotent,
      retries: tool.retries,
      timeoutSeconds: tool.timeout_seconds,
      skillName: version.name,
      toolName: tool.name,
      nextTools: tool.next_tools,
      annotations: {
        ...(typeof tool.annotations.title === 'string' ? { title: tool.annotations.title } : {}),
        readOnlyHint: tool.read_only,
        destructiveHint: tool.destructive,
        idempotentHint: tool.idempotent,
        openWorldHint: tool.annotations.openWorldHint === true,
      },
      toolGroup: tool.group ?? null,
      deferLoading: tool.defer_loading ?? false,
      taskSupport: taskSupportOf(tool.task_support, tool.timeout_seconds),
    }));
}

export function matches(version: SkillVersionRecord, filter: ToolFilter): boolean {
  if (filter.domain !== undefined && version.domain !== filter.domain) return false;
  if (filter.agent !== undefined && version.agent !== filter.agent) return false;
  if (filter.phase !== undefined && version.phase > filter.phase) return false;
  if (filter.tags && !filter.tags.every((tag) => version.tags.includes(tag))) return false;
  return true;
}

export function filterKey(filter: ToolFilter): string {
  return JSON.stringify([filter.domain ?? null, filter.agent ?? null, filter.phase ?? null, [...(filter.tags ?? [])].sort()]);
}
