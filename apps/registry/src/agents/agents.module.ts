import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { AgentCardReads } from './agent-card-reads.js';
import { AgentCards } from './agent-cards.js';
import { AgentsController } from './agents.controller.js';

/** A2A v1.0 agent cards of the registry and of each agent of its catalog (issue 26 §3). */
@Module({
  imports: [CatalogModule],
  controllers: [AgentsController],
  providers: [AgentCards, AgentCardReads],
})
export class AgentsModule {}
