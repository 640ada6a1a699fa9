import { Injectable } from '@nestjs/common';
import { ProtocolError, ProtocolErrorCode, type GetPromptResult, type ListPromptsResult } from '@modelcontextprotocol/server';
import { LRUCache } from 'lru-cache';
import { splitSkillMarkdown } from '#agent-skills/index.js';
import { isExecutable } from '#contracts/index.js';
import { mcpPage } from '../mcp-protocol/mcp-paging.js';
import { PackageStore } from '#package-store/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { type SkillVersionRecord, currentVersion } from '../catalog/skill-records.js';
import { type ToolFilter, matches } from '../tool-definitions/exposed-skills.js';

const PAGE_SIZE = 200;

/**
 * MCP prompts: each ACTIVE or DEPRECATED skill's instructions — its stored SKILL.md without the
 * frontmatter — as a prompt named like the skill, so hosts can offer skills as commands. The
 * connection's filter applies as for tools.
 */
@Injectable()
export class McpPrompts {
  private readonly bodies = new LRUCache<string, string>({ max: 5000 });

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly store: PackageStore,
  ) {}

  list(filter: ToolFilter, cursor: unknown): ListPromptsResult {
    const { page, nextCursor } = mcpPage(this.versions(filter), (version) => version.name, cursor, PAGE_SIZE);
    const prompts = page.map((version) => ({ name: version.name, title: version.name, description: version.description }));
    return nextCursor ? { prompts, nextCursor } : { prompts };
  }

  async get(filter: ToolFilter, name: string): Promise<GetPromptResult> {
    const version = this.versions(filter).find((candidate) => candidate.name === name);
    if (!version) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    return {
      description: version.description,
      messages: [{ role: 'user', content: { type: 'text', text: await this.instructions(version) } }],
    };
  }

  /** What changes the prompt list (for notifications/prompts/list_changed). */
  fingerprint(): string {
    return this.versions({})
      .map((version) => `${version.name}@${version.version}:${version.contentHash}:${version.status}`)
      .join('\n');
  }

  private versions(filter: ToolFilter): SkillVersionRecord[] {
    return this.catalog
      .all()
      .map(currentVersion)
      .filter((version) => isExecutable(version.status) && matches(version, filter));
  }

  /** SKILL.md after its frontmatter, from the store (immutable per content hash, so cached). */
  private async instructions(version: SkillVersionRecord): Promise<string> {
    const cached = this.bodies.get(version.contentHash);
    if (cached !== undefined) return cached;
    const file = await this.store.readFile(version.contentHash, 'SKILL.md');
    const text = file?.bytes.toString('utf8') ?? '';
    const body = (splitSkillMarkdown(text)?.body ?? text).trim() || version.description;
    this.bodies.set(version.contentHash, body);
    return body;
  }
}
