import { createHash } from 'node:crypto';
import { AgentCard, type AgentSkill } from '@a2a-js/sdk';
import type { SkillVersionRecord } from '../catalog/skill-records.js';

/**
 * The content of A2A v1.0 agent cards (A2A specification §4.4, a2a.proto `AgentCard`), built with the
 * official A2A SDK's types. The registry speaks MCP and REST, not A2A's message protocol, so its
 * `supportedInterfaces` are custom bindings named by URI (§5.8): the MCP endpoint (one entry per MCP
 * revision it serves, `protocolVersion` that revision) and the REST API (binding: its OpenAPI document).
 */

const MCP_REVISIONS = ['2025-11-25', '2026-07-28'];
const JSON_MODE = 'application/json';
const MARKDOWN_MODE = 'text/markdown';
/** Examples per skill on a card: enough to show the input's shape, not the whole test suite. */
const MAX_EXAMPLES = 3;

export interface CardContext {
  /** The registry's public base URL, without a trailing slash. */
  baseUrl: string;
  /** Whether calls need a bearer token (AGENT_TOKENS set): the card then declares the scheme. */
  tokensRequired: boolean;
}

/** The card of one agent: its ACTIVE skills, and the MCP endpoint filtered to them. */
export function agentCard(agent: string, skills: SkillVersionRecord[], context: CardContext): AgentCard {
  const mcpUrl = `${context.baseUrl}/mcp?agent=${encodeURIComponent(agent)}`;
  const domains = [...new Set(skills.map((skill) => skill.domain))].sort();
  return card(context, {
    name: `${agent} agent`,
    description: `The ${agent} agent of this skill registry: ${skills.length} ACTIVE skill${skills.length === 1 ? '' : 's'} (${domains.join(', ')}), each an MCP tool at ${mcpUrl} and a REST execution at ${context.baseUrl}/v1/skills/{name}/executions.`,
    mcpUrl,
    version: versionOf(skills),
    skills: skills.map(skillOf),
  });
}

/** The registry's own card (/.well-known/agent-card.json): one A2A skill per agent, pointing at that agent's card. */
export function registryCard(agents: Map<string, SkillVersionRecord[]>, context: CardContext): AgentCard {
  const all = [...agents.values()].flat();
  return card(context, {
    name: 'Skill Registry',
    description:
      'A registry and executor of typed, versioned engineering skills (mechanical, electronics, firmware, simulation) for AI agents, ' +
      'served over MCP and REST. Each agent below has its own card at /v1/agents/{agent}/card.',
    mcpUrl: `${context.baseUrl}/mcp`,
    version: versionOf(all),
    skills: [...agents].map(([agent, skills]) => ({
      id: `agent:${agent}`,
      name: `${agent} skills`,
      description: `${skills.length} ACTIVE skill${skills.length === 1 ? '' : 's'} of the ${agent} agent; card: ${context.baseUrl}/v1/agents/${encodeURIComponent(agent)}/card`,
      tags: [agent, ...new Set(skills.flatMap((skill) => [skill.domain, ...skill.tags]))].slice(0, 20),
      examples: skills.slice(0, MAX_EXAMPLES).map((skill) => `${skill.name}: ${skill.description}`),
      inputModes: [JSON_MODE],
      outputModes: [JSON_MODE],
      securityRequirements: [],
    })),
  });
}

function card(
  context: CardContext,
  fields: { name: string; description: string; mcpUrl: string; version: string; skills: AgentSkill[] },
): AgentCard {
  const bearer = context.tokensRequired;
  return {
    name: fields.name,
    description: fields.description,
    supportedInterfaces: [
      ...MCP_REVISIONS.map((revision) => ({
        url: fields.mcpUrl,
        protocolBinding: `https://modelcontextprotocol.io/specification/${revision}/basic/transports`,
        tenant: '',
        protocolVersion: revision,
      })),
      { url: `${context.baseUrl}/v1`, protocolBinding: `${context.baseUrl}/docs-json`, tenant: '', protocolVersion: '1' },
    ],
    provider: { organization: 'Skill Registry', url: context.baseUrl },
    version: fields.version,
    documentationUrl: `${context.baseUrl}/docs`,
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: bearer
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { scheme: 'Bearer', description: 'An agent token of the registry (AGENT_TOKENS)', bearerFormat: '' },
            },
          },
        }
      : {},
    securityRequirements: bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: [JSON_MODE],
    defaultOutputModes: [JSON_MODE],
    skills: fields.skills,
    signatures: [],
  };
}

/** An A2A skill from a skill version: its name, description, tags, domain, example inputs and media types. */
function skillOf(version: SkillVersionRecord): AgentSkill {
  const instructions = version.format === 'agent-skills' && version.tools.length === 0;
  const examples =
    version.format === 'typescript'
      ? version.examples.map((example) => example.input)
      : version.tools.flatMap((tool) => tool.examples.map((example) => example.input));
  return {
    id: version.name,
    name: version.exposure.title ?? version.name,
    description: version.description,
    tags: [...new Set([version.domain, ...version.tags])],
    examples: examples.slice(0, MAX_EXAMPLES).map((input) => JSON.stringify(input)),
    inputModes: instructions ? [MARKDOWN_MODE] : [JSON_MODE],
    outputModes: instructions ? [MARKDOWN_MODE] : [JSON_MODE],
    securityRequirements: [],
  };
}

/** A card's version: a digest of the skill versions on it, so it moves exactly when they do. */
function versionOf(skills: SkillVersionRecord[]): string {
  const digest = createHash('sha256');
  for (const skill of [...skills].sort((a, b) => (a.name < b.name ? -1 : 1)))
    digest.update(`${skill.name}@${skill.version}:${skill.contentHash}\n`);
  return `catalog-${digest.digest('hex').slice(0, 12)}`;
}

/** The card as served: the protobuf JSON form of the official SDK (proto defaults and empty lists left out). */
export function cardJson(value: AgentCard): Record<string, unknown> {
  return AgentCard.toJSON(value) as Record<string, unknown>;
}
