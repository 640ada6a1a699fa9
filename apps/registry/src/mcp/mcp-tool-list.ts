import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ListToolsResult, Tool } from '@modelcontextprotocol/server';
import { LRUCache } from 'lru-cache';
import { encodeCursor } from '#contracts/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { decodeMcpCursor } from '../mcp-protocol/mcp-paging.js';
import type { LoadedSkills, ToolExposureMode } from '../mcp-protocol/loaded-skills.js';
import { ExposedSkills, type ExposedSkill, type ToolFilter, filterKey } from '../tool-definitions/exposed-skills.js';
import { toMcpTool } from '../tool-definitions/tool-definition-formats.js';
import { DISCOVERY_TOOLS, DISCOVERY_TOOL_NAMES } from '../search/discovery-tools.js';
import { LOADING_TOOLS, LOADING_TOOL_NAMES } from './loading-tool-definitions.js';
import { groupStub, skillStub, type SkillTools } from './tool-stubs.js';

/** Tools per tools/list page; clients walk `nextCursor`. */
export const TOOLS_PAGE_SIZE = 200;
/** `auto` exposure lists everything up to this many tools for a connection, progressively above. */
export const PROGRESSIVE_ABOVE_TOOLS = 50;
/**
 * Progressive mode lists a `__skill__<name>` stub per unloaded skill while there are at most this many:
 * above, 1,000 stubs would cost ~150 KB, the very cost progressive exposure exists to avoid, and
 * search_skills / list_skills find them instead.
 */
export const MAX_SKILL_STUBS = 50;

interface Listing {
  tools: Tool[];
  /** Changes exactly when the listed tools change (what notifications/tools/list_changed announces). */
  fingerprint: string;
}

/** The catalog as one filter sees it, built once per catalog generation. */
interface FilteredCatalog {
  /** Mode `all`: the discovery tools, then every exposed tool in name order. */
  all: Listing;
  /** Exposed tools by skill, skills in name order. */
  skills: Map<string, SkillTools>;
}

/**
 * What tools/list shows a connection. In mode `all` the discovery tools, then every exposed skill passing
 * the connection's filter, in name order. In mode `progressive` (seed 004 "On-Demand Discovery") the
 * discovery and loading tools, the tools of the skills the connection loaded (of their active groups), a
 * `__group__` stub per dormant group of a loaded skill, and a `__skill__` stub per unloaded skill while
 * they are few.
 */
@Injectable()
export class McpToolList {
  private readonly logger = new Logger(McpToolList.name);
  private readonly catalogs = new LRUCache<string, FilteredCatalog>({ max: 256 });
  private generation = -1;
  private readonly reportedCollisions = new Set<string>();

  constructor(
    private readonly exposed: ExposedSkills,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'MCP_TOOL_EXPOSURE'>,
  ) {}

  /** The exposure mode of a connection with this filter (MCP_TOOL_EXPOSURE; `auto` by its tool count). */
  modeFor(filter: ToolFilter): ToolExposureMode {
    const configured = this.config.MCP_TOOL_EXPOSURE;
    if (configured !== 'auto') return configured;
    return this.catalog(filter).all.tools.length - DISCOVERY_TOOLS.length > PROGRESSIVE_ABOVE_TOOLS ? 'progressive' : 'all';
  }

  page(filter: ToolFilter, loaded: LoadedSkills, cursor: unknown): ListToolsResult {
    const { tools } = this.listing(filter, loaded);
    const fixed = loaded.mode === 'all' ? DISCOVERY_TOOLS.length : DISCOVERY_TOOLS.length + LOADING_TOOLS.length;
    let start = 0;
    const after = decodeMcpCursor(cursor);
    if (after !== undefined) {
      // After the fixed tools, names are in order; a cursor names the last tool returned.
      const index = tools.findIndex((tool) => tool.name === after);
      start = index >= 0 ? index + 1 : tools.findIndex((tool, i) => i >= fixed && tool.name > after);
      if (start < 0) start = tools.length;
    }
    const page = tools.slice(start, start + TOOLS_PAGE_SIZE);
    const last = page[page.length - 1];
    return start + TOOLS_PAGE_SIZE < tools.length && last ? { tools: page, nextCursor: encodeCursor(last.name) } : { tools: page };
  }

  get catalogGeneration(): number {
    return this.exposed.catalogGeneration;
  }

  fingerprint(filter: ToolFilter, loaded: LoadedSkills): string {
    return this.listing(filter, loaded).fingerprint;
  }

  /** The skill behind a tool name for this connection, if it is one of its exposed tools (loaded or not). */
  findSkill(name: string, filter: ToolFilter): ExposedSkill | undefined {
    if (DISCOVERY_TOOL_NAMES.has(name) || LOADING_TOOL_NAMES.has(name)) return undefined;
    return this.exposed.find(name, filter);
  }

  /** A skill's exposed tools and groups for this filter (undefined: not exposed to it). */
  skillTools(skill: string, filter: ToolFilter): SkillTools | undefined {
    return this.catalog(filter).skills.get(skill);
  }

  /** Every exposed skill of this filter, in name order. */
  allSkills(filter: ToolFilter): SkillTools[] {
    return [...this.catalog(filter).skills.values()];
  }

  private listing(filter: ToolFilter, loaded: LoadedSkills): Listing {
    const catalog = this.catalog(filter);
    if (loaded.mode === 'all') return catalog.all;
    const tools: Tool[] = [...DISCOVERY_TOOLS, ...LOADING_TOOLS];
    const listed: ExposedSkill[] = [];
    const stubs: Tool[] = [];
    for (const name of loaded.names()) {
      const skill = catalog.skills.get(name);
      if (!skill) continue;
      for (const tool of skill.tools) if (tool.toolGroup === null || loaded.isActive(name, tool.toolGroup)) listed.push(tool);
      for (const group of skill.groups) if (!loaded.isActive(name, group.name)) stubs.push(groupStub(skill, group));
    }
    const unloaded = [...catalog.skills.values()].filter((skill) => !loaded.isLoaded(skill.name));
    if (unloaded.length <= MAX_SKILL_STUBS) stubs.push(...unloaded.map(skillStub));
    const entries = [...listed.map(toMcpTool), ...stubs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    tools.push(...entries);
    const hash = createHash('sha256').update(catalog.all.fingerprint);
    for (const entry of entries) hash.update(`${entry.name}\n`);
    return { tools, fingerprint: hash.digest('base64url') };
  }

  private catalog(filter: ToolFilter): FilteredCatalog {
    if (this.generation !== this.exposed.catalogGeneration) {
      this.catalogs.clear();
      this.generation = this.exposed.catalogGeneration;
    }
    const key = filterKey(filter);
    let catalog = this.catalogs.get(key);
    if (!catalog) {
      const exposed = this.exposed.list(filter).filter((skill) => !this.collides(skill.name));
      const skills = new Map<string, SkillTools>();
      for (const tool of [...exposed].sort((a, b) => (a.skillName < b.skillName ? -1 : a.skillName > b.skillName ? 1 : 0))) {
        let entry = skills.get(tool.skillName);
        if (!entry) {
          entry = {
            name: tool.skillName,
            version: tool,
            tools: [],
            groups: (tool.exposure.groups ?? []).filter((group) => group.tools.length > 0),
          };
          skills.set(tool.skillName, entry);
        }
        entry.tools.push(tool);
      }
      catalog = { all: { tools: [...DISCOVERY_TOOLS, ...exposed.map(toMcpTool)], fingerprint: fingerprintOf(exposed) }, skills };
      this.catalogs.set(key, catalog);
    }
    return catalog;
  }

  /** A skill named like a discovery or loading tool is not listed (and said once). Stub names cannot collide: skill names start with a letter. */
  private collides(name: string): boolean {
    if (!DISCOVERY_TOOL_NAMES.has(name) && !LOADING_TOOL_NAMES.has(name)) return false;
    if (!this.reportedCollisions.has(name)) {
      this.reportedCollisions.add(name);
      this.logger.warn(`skill '${name}' has the name of an MCP discovery or loading tool and is not listed as a tool; rename it`);
    }
    return true;
  }
}

/** Everything a skill's tool definition is made of: its version, status, package content and deprecation. */
function fingerprintOf(skills: ExposedSkill[]): string {
  const hash = createHash('sha256');
  for (const skill of skills) {
    hash.update(
      [
        skill.name,
        skill.version,
        skill.status,
        skill.contentHash,
        skill.deprecationReason,
        skill.deprecationSuccessor,
        skill.deprecationSunset?.toISOString(),
      ].join('\u0000') + '\n',
    );
  }
  return hash.digest('base64url');
}
