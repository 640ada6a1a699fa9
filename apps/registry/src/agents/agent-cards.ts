import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { currentVersion, type SkillVersionRecord } from '../catalog/skill-records.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { AgentNotFound } from '../problem/domain-errors.js';
import { jsonRead, type JsonRead } from '../skills/conditional-get.js';
import { AgentCardSigner } from './agent-card-signer.js';
import { agentCard, cardJson, registryCard, type CardContext } from './agent-card-content.js';

/**
 * A2A v1.0 agent cards (issue 26 §3): the registry's own and one per agent that owns an ACTIVE skill (the
 * catalog's mechanical, electronics, firmware, simulation, and any agent a package names). Built from the
 * catalog, signed when a key is configured, and kept per catalog generation and base URL, so a read is a
 * lookup and a promotion or deprecation shows at once.
 */
@Injectable()
export class AgentCards {
  private readonly cards = new LRUCache<string, Promise<JsonRead>>({ max: 256 });
  private generation = -1;
  private readonly signer: AgentCardSigner | null;
  private readonly tokensRequired: boolean;
  private readonly publicBaseUrl: string | undefined;

  constructor(
    private readonly catalog: SkillCatalog,
    @Inject(APP_CONFIG)
    config: Pick<AppConfig, 'AGENT_TOKENS' | 'AGENT_CARD_SIGNING_KEY' | 'AGENT_CARD_SIGNING_KEY_ID' | 'PUBLIC_BASE_URL'>,
  ) {
    this.tokensRequired = config.AGENT_TOKENS.length > 0;
    this.publicBaseUrl = config.PUBLIC_BASE_URL?.replace(/\/+$/, '');
    this.signer =
      config.AGENT_CARD_SIGNING_KEY && config.AGENT_CARD_SIGNING_KEY_ID
        ? new AgentCardSigner(config.AGENT_CARD_SIGNING_KEY.replace(/\\n/g, '\n'), config.AGENT_CARD_SIGNING_KEY_ID)
        : null;
  }

  /** Whether anyone may read a card (no agent tokens): caches may then share it. */
  get public(): boolean {
    return !this.tokensRequired;
  }

  /** The registry's card; `requestBaseUrl` is the request's own origin, used when PUBLIC_BASE_URL is not set. */
  registry(requestBaseUrl: string): Promise<JsonRead> {
    return this.cached(null, requestBaseUrl, (context) => registryCard(this.agents(), context));
  }

  /** One agent's card; AgentNotFound when it owns no ACTIVE skill. */
  agent(agent: string, requestBaseUrl: string): Promise<JsonRead> {
    const agents = this.agents();
    const skills = agents.get(agent);
    if (!skills) throw new AgentNotFound(agent, [...agents.keys()]);
    return this.cached(agent, requestBaseUrl, (context) => agentCard(agent, skills, context));
  }

  private cached(
    agent: string | null,
    requestBaseUrl: string,
    build: (context: CardContext) => ReturnType<typeof agentCard>,
  ): Promise<JsonRead> {
    if (this.generation !== this.catalog.generation) {
      this.cards.clear();
      this.generation = this.catalog.generation;
    }
    const baseUrl = this.publicBaseUrl ?? requestBaseUrl;
    const key = JSON.stringify([agent, baseUrl]);
    let read = this.cards.get(key);
    if (!read) {
      const card = build({ baseUrl, tokensRequired: this.tokensRequired });
      read = (this.signer ? this.signer.signed(card) : Promise.resolve(card)).then((final) => jsonRead(JSON.stringify(cardJson(final))));
      read.catch(() => this.cards.delete(key));
      this.cards.set(key, read);
    }
    return read;
  }

  /** Agents owning at least one ACTIVE skill (current version), in name order, each with those skills. */
  private agents(): Map<string, SkillVersionRecord[]> {
    const agents = new Map<string, SkillVersionRecord[]>();
    for (const skill of this.catalog.all()) {
      const current = currentVersion(skill);
      if (current.status !== 'ACTIVE' || current.agent === '') continue;
      agents.set(current.agent, [...(agents.get(current.agent) ?? []), current]);
    }
    return new Map([...agents].sort(([a], [b]) => (a < b ? -1 : 1)));
  }
}
