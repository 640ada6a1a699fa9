import { Injectable } from '@nestjs/common';
import { isExecutable } from '../../../../libs/contracts/src/index.js';
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

/** A skill offered to agents as a tool: its current version, executable, with an object input schema. */
export type ExposedSkill = SkillVersionRecord & { inputSchema: Record<string, unknown> };

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
  private readonly selections = new Map<string, ExposedSkill[]>();
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
        .filter((version): version is ExposedSkill => isExposed(version) && matches(version, filter));
      if (this.selections.size >= MAX_CACHED_FILTERS) this.selections.delete(this.selections.keys().next().value as string);
      this.selections.set(key, selection);
    }
    return selection;
  }

  /** One exposed skill by name, if it passes `filter`. */
  find(name: string, filter: ToolFilter = {}): ExposedSkill | undefined {
    const skill = this.catalog.get(name);
    if (!skill) return undefined;
    const version = currentVersion(skill);
    return isExposed(version) && matches(version, filter) ? version : undefined;
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
function isExposed(version: SkillVersionRecord): version is ExposedSkill {
  return isExecutable(version.status) && version.inputSchema !== null && version.inputSchema.type === 'object';
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
