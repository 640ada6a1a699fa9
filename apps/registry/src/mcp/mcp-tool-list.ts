import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { ListToolsResult, Tool } from '@modelcontextprotocol/server';
import { LRUCache } from 'lru-cache';
import { encodeCursor } from '#contracts/index.js';
import { decodeMcpCursor } from '../mcp-protocol/mcp-paging.js';
import { ExposedSkills, type ExposedSkill, type ToolFilter, filterKey } from '../tool-definitions/exposed-skills.js';
import { toMcpTool } from '../tool-definitions/tool-definition-formats.js';
import { DISCOVERY_TOOLS, DISCOVERY_TOOL_NAMES } from '../search/discovery-tools.js';

/** Tools per tools/list page; clients walk `nextCursor`. */
export const TOOLS_PAGE_SIZE = 200;

interface Listing {
  tools: Tool[];
  /** Changes exactly when the listed tools change (what notifications/tools/list_changed announces). */
  fingerprint: string;
}

/**
 * What tools/list shows a connection: the discovery tools, then every exposed skill passing the
 * connection's filter, in name order. Built once per catalog generation and filter.
 */
@Injectable()
export class McpToolList {
  private readonly logger = new Logger(McpToolList.name);
  private readonly listings = new LRUCache<string, Listing>({ max: 256 });
  private generation = -1;
  private readonly reportedCollisions = new Set<string>();

  constructor(private readonly exposed: ExposedSkills) {}

  page(filter: ToolFilter, cursor: unknown): ListToolsResult {
    const { tools } = this.listing(filter);
    let start = 0;
    const after = decodeMcpCursor(cursor);
    if (after !== undefined) {
      // Skills are in name order after the discovery tools; a cursor names the last tool returned.
      const index = tools.findIndex((tool) => tool.name === after);
      start = index >= 0 ? index + 1 : tools.findIndex((tool, i) => i >= DISCOVERY_TOOLS.length && tool.name > after);
      if (start < 0) start = tools.length;
    }
    const page = tools.slice(start, start + TOOLS_PAGE_SIZE);
    const last = page[page.length - 1];
    return start + TOOLS_PAGE_SIZE < tools.length && last ? { tools: page, nextCursor: encodeCursor(last.name) } : { tools: page };
  }

  get catalogGeneration(): number {
    return this.exposed.catalogGeneration;
  }

  fingerprint(filter: ToolFilter): string {
    return this.listing(filter).fingerprint;
  }

  /** The skill behind a tool name for this connection, if it is one of its tools. */
  findSkill(name: string, filter: ToolFilter): ExposedSkill | undefined {
    if (DISCOVERY_TOOL_NAMES.has(name)) return undefined;
    return this.exposed.find(name, filter);
  }

  private listing(filter: ToolFilter): Listing {
    if (this.generation !== this.exposed.catalogGeneration) {
      this.listings.clear();
      this.generation = this.exposed.catalogGeneration;
    }
    const key = filterKey(filter);
    let listing = this.listings.get(key);
    if (!listing) {
      const skills = this.exposed.list(filter).filter((skill) => {
        if (!DISCOVERY_TOOL_NAMES.has(skill.name)) return true;
        if (!this.reportedCollisions.has(skill.name)) {
          this.reportedCollisions.add(skill.name);
          this.logger.warn(`skill '${skill.name}' has the name of an MCP discovery tool and is not listed as a tool; rename it`);
        }
        return false;
      });
      listing = {
        tools: [...DISCOVERY_TOOLS, ...skills.map(toMcpTool)],
        fingerprint: fingerprintOf(skills),
      };
      this.listings.set(key, listing);
    }
    return listing;
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
