import { Injectable } from '@nestjs/common';
import { ProtocolError, ProtocolErrorCode, type GetPromptResult, type ListPromptsResult, type Prompt } from '@modelcontextprotocol/server';
import { LRUCache } from 'lru-cache';
import { splitSkillMarkdown } from '#agent-skills/index.js';
import { isExecutable, renderPrompt, type StoredPrompt } from '#contracts/index.js';
import { mcpPage } from '../mcp-protocol/mcp-paging.js';
import { PackageStore } from '#package-store/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { type SkillVersionRecord, currentVersion } from '../catalog/skill-records.js';
import { type ToolFilter, matches } from '../tool-definitions/exposed-skills.js';

const PAGE_SIZE = 200;

/** One listed prompt: a skill's instructions, or a prompt template its package declares. */
interface PromptEntry {
  name: string;
  version: SkillVersionRecord;
  /** The package's prompt template; null for the skill's own instructions. */
  template: StoredPrompt | null;
}

/**
 * MCP prompts, for each ACTIVE or DEPRECATED skill: its instructions — its stored SKILL.md without the
 * frontmatter — as a prompt named like the skill, so hosts can offer skills as commands; and the prompt
 * templates an Agent Skills package declares (seed 004's `metadata.dcc-mcp.prompts`), named
 * `<skill>__<prompt>`, whose `{{argument}}` placeholders prompts/get fills in. The connection's filter
 * applies as for tools.
 */
@Injectable()
export class McpPrompts {
  private readonly bodies = new LRUCache<string, string>({ max: 5000 });

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly store: PackageStore,
  ) {}

  list(filter: ToolFilter, cursor: unknown): ListPromptsResult {
    const { page, nextCursor } = mcpPage(this.entries(filter), (entry) => entry.name, cursor, PAGE_SIZE);
    const prompts = page.map(listed);
    return nextCursor ? { prompts, nextCursor } : { prompts };
  }

  async get(filter: ToolFilter, name: string, args: Record<string, string> = {}): Promise<GetPromptResult> {
    const entry = this.entries(filter).find((candidate) => candidate.name === name);
    if (!entry) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    if (entry.template === null) {
      return {
        description: entry.version.description,
        messages: [{ role: 'user', content: { type: 'text', text: await this.instructions(entry.version) } }],
      };
    }
    return {
      description: entry.template.description,
      messages: [
        { role: 'user', content: { type: 'text', text: renderPrompt(entry.template.template, checkedArguments(entry.template, args)) } },
      ],
    };
  }

  /** What changes the prompt list (for notifications/prompts/list_changed). */
  fingerprint(): string {
    return this.versions({})
      .map((version) => `${version.name}@${version.version}:${version.contentHash}:${version.status}`)
      .join('\n');
  }

  /** Every prompt the connection sees, sorted by name (the paging key). */
  private entries(filter: ToolFilter): PromptEntry[] {
    return this.versions(filter)
      .flatMap((version): PromptEntry[] => [
        { name: version.name, version, template: null },
        ...version.prompts.map((template) => ({ name: template.qualified_name, version, template })),
      ])
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
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

function listed(entry: PromptEntry): Prompt {
  if (entry.template === null) return { name: entry.name, title: entry.name, description: entry.version.description };
  const { template } = entry;
  return {
    name: entry.name,
    title: template.title ?? template.name,
    description: template.description,
    arguments: template.arguments.map((argument) => ({
      name: argument.name,
      ...(argument.description ? { description: argument.description } : {}),
      required: argument.required,
    })),
  };
}

/** The caller's arguments, refused (-32602) when a required one is missing or one is not declared. */
function checkedArguments(template: StoredPrompt, args: Record<string, string>): Record<string, string> {
  const declared = new Set(template.arguments.map((argument) => argument.name));
  const unknown = Object.keys(args).filter((name) => !declared.has(name));
  const missing = template.arguments.filter((argument) => argument.required && !Object.hasOwn(args, argument.name));
  if (unknown.length > 0 || missing.length > 0) {
    const problems = [
      ...(missing.length > 0
        ? [`missing required argument${missing.length > 1 ? 's' : ''} ${missing.map((argument) => argument.name).join(', ')}`]
        : []),
      ...(unknown.length > 0 ? [`unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`] : []),
    ];
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${template.qualified_name}: ${problems.join('; ')}`);
  }
  return args;
}
