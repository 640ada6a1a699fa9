import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { MAX_LOADED_SKILLS, type LoadedSkills } from '../mcp-protocol/loaded-skills.js';
import type { McpConnection } from '../mcp-protocol/mcp-connection.js';
import { mcpPage } from '../mcp-protocol/mcp-paging.js';
import { invalidArguments, structuredResult } from '../mcp-protocol/mcp-tool-results.js';
import {
  ACTIVATE_TOOL_GROUP,
  LIST_SKILLS,
  LOAD_SKILL,
  UNLOAD_SKILL,
  listSkillsArguments,
  loadSkillArguments,
  toolGroupArguments,
  unloadSkillArguments,
} from './loading-tool-definitions.js';
import { McpToolList } from './mcp-tool-list.js';
import type { SkillTools } from './tool-stubs.js';

const DEFAULT_PAGE = 50;

/** How a loading tool tells the connection that its tools/list changed (2025-era sessions; no-op per request). */
export type AnnounceToolsChanged = () => Promise<void>;

/**
 * list_skills, load_skill, unload_skill, activate_tool_group and deactivate_tool_group: they read and
 * change what the connection has loaded (LoadedSkills). A change is announced (a 2025-era session gets
 * notifications/tools/list_changed on the call's stream) and answered with the `toolset` token that a
 * 2026-07-28 client sends back in `_meta["io.skill-registry/toolset"]`.
 */
@Injectable()
export class SkillLoadingTools {
  constructor(private readonly toolList: McpToolList) {}

  async call(
    name: string,
    rawArguments: unknown,
    connection: McpConnection,
    loaded: LoadedSkills,
    announce: AnnounceToolsChanged,
  ): Promise<CallToolResult> {
    const args = rawArguments ?? {};
    if (name === LIST_SKILLS) {
      const parsed = listSkillsArguments.safeParse(args);
      return parsed.success ? this.list(parsed.data, connection, loaded) : invalidArguments(name, parsed.error);
    }
    if (name === LOAD_SKILL) {
      const parsed = loadSkillArguments.safeParse(args);
      if (!parsed.success) return invalidArguments(name, parsed.error);
      return this.changed(this.load(parsed.data.skill_name, parsed.data.groups ?? [], connection, loaded), announce);
    }
    if (name === UNLOAD_SKILL) {
      const parsed = unloadSkillArguments.safeParse(args);
      if (!parsed.success) return invalidArguments(name, parsed.error);
      const unloaded = loaded.unload(parsed.data.skill_name);
      return this.changed({ result: { skill: parsed.data.skill_name, unloaded, toolset: loaded.token() }, changed: unloaded }, announce);
    }
    const parsed = toolGroupArguments.safeParse(args);
    if (!parsed.success) return invalidArguments(name, parsed.error);
    return this.changed(this.setGroup(parsed.data, name === ACTIVATE_TOOL_GROUP, connection, loaded), announce);
  }

  private async changed(outcome: Outcome, announce: AnnounceToolsChanged): Promise<CallToolResult> {
    if ('error' in outcome) return { isError: true, content: [{ type: 'text', text: outcome.error }] };
    if (outcome.changed) await announce();
    return structuredResult(outcome.result);
  }

  private list(args: z.output<typeof listSkillsArguments>, { filter }: McpConnection, loaded: LoadedSkills): CallToolResult {
    const status = args.status ?? 'all';
    const skills = this.toolList
      .allSkills(filter)
      .filter((skill) => status === 'all' || loaded.isLoaded(skill.name) === (status === 'loaded'));
    const { page, nextCursor } = mcpPage(skills, (skill) => skill.name, args.cursor, args.limit ?? DEFAULT_PAGE);
    return structuredResult({
      items: page.map((skill) => ({
        name: skill.name,
        version: skill.version.version,
        description: skill.version.description,
        tools: skill.tools.map((tool) => tool.name),
        // In mode `all` every tool is listed: every skill counts as loaded.
        loaded: loaded.mode === 'all' || loaded.isLoaded(skill.name),
        groups: skill.groups.map((group) => ({ name: group.name, active: loaded.isActive(skill.name, group.name) })),
      })),
      total: skills.length,
      ...(nextCursor ? { nextCursor } : {}),
    });
  }

  /** Loads the skill, then what it depends on (seed 004), each with its default-active groups. */
  private load(name: string, groups: string[], { filter }: McpConnection, loaded: LoadedSkills): Outcome {
    const skill = this.toolList.skillTools(name, filter);
    if (!skill) return notLoadable(name);
    const unknown = groups.filter((group) => !skill.groups.some((declared) => declared.name === group));
    if (unknown.length > 0) return unknownGroups(skill, unknown);
    const active = [...new Set([...skill.groups.filter((group) => group.default_active).map((group) => group.name), ...groups])];
    if (!loaded.load(name, active)) return loadLimit(name);
    const dependencies: string[] = [];
    const pending = [...skill.version.dependsOn.map((dependency) => dependency.name)];
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
      if (loaded.isLoaded(next)) continue;
      const dependency = this.toolList.skillTools(next, filter);
      // A dependency this connection cannot see (or that has no tools) is for the skill's handler, not for the agent.
      if (!dependency) continue;
      if (
        !loaded.load(
          next,
          dependency.groups.filter((group) => group.default_active).map((group) => group.name),
        )
      )
        break;
      dependencies.push(next);
      pending.push(...dependency.version.dependsOn.map((transitive) => transitive.name));
    }
    return {
      changed: true,
      result: {
        skill: name,
        version: skill.version.version,
        tools: listedTools(skill, loaded),
        groups: skill.groups.map((group) => ({
          name: group.name,
          description: group.description,
          active: loaded.isActive(name, group.name),
          tools: group.tools,
        })),
        dependencies_loaded: dependencies,
        toolset: loaded.token(),
      },
    };
  }

  private setGroup(args: z.output<typeof toolGroupArguments>, active: boolean, connection: McpConnection, loaded: LoadedSkills): Outcome {
    const skill = this.toolList.skillTools(args.skill_name, connection.filter);
    if (!skill) return notLoadable(args.skill_name);
    if (!skill.groups.some((group) => group.name === args.group)) return unknownGroups(skill, [args.group]);
    let changed = false;
    if (!loaded.isLoaded(skill.name)) {
      if (!active)
        return { changed: false, result: { skill: skill.name, group: args.group, active: false, tools: [], toolset: loaded.token() } };
      const outcome = this.load(skill.name, [args.group], connection, loaded);
      if ('error' in outcome) return outcome;
      changed = true;
    }
    changed = loaded.setGroup(skill.name, args.group, active) || changed;
    return {
      changed,
      result: { skill: skill.name, group: args.group, active, tools: listedTools(skill, loaded), toolset: loaded.token() },
    };
  }
}

type Outcome = { changed: boolean; result: Record<string, unknown> } | { error: string };

/** The qualified names of the skill's tools now in tools/list (ungrouped, or in an active group). */
function listedTools(skill: SkillTools, loaded: LoadedSkills): string[] {
  return skill.tools.filter((tool) => tool.toolGroup === null || loaded.isActive(skill.name, tool.toolGroup)).map((tool) => tool.name);
}

function notLoadable(name: string): Outcome {
  return {
    error:
      `SKILL_NOT_LOADABLE: no skill '${name}' with tools is offered to this connection ` +
      '(unknown, outside its filter, not ACTIVE or DEPRECATED, or instructions only); find skills with search_skills or list_skills',
  };
}

function unknownGroups(skill: SkillTools, unknown: string[]): Outcome {
  const declared = skill.groups.map((group) => group.name);
  return {
    error: `TOOL_GROUP_NOT_FOUND: skill '${skill.name}' has no tool group ${unknown.map((group) => `'${group}'`).join(', ')}; ${
      declared.length ? `its groups: ${declared.join(', ')}` : 'it has no groups'
    }`,
  };
}

function loadLimit(name: string): Outcome {
  return { error: `LOAD_LIMIT: ${MAX_LOADED_SKILLS} skills are loaded already; unload_skill one before loading '${name}'` };
}
