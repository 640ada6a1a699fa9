import { Injectable } from '@nestjs/common';
import { type SkillStatusName, type TransitionTrigger, allowedTransitions, findTransition } from '#contracts/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { NewLifecycleEvent, SkillVersionRecord } from '../catalog/skill-records.js';
import { SkillsRepository, type VersionPatch } from '../catalog/skills.repository.js';
import { ConcurrentModification, InvalidTransition, SkillNotFound } from '../problem/domain-errors.js';
import { LifecycleEventsPublisher } from './lifecycle-events.publisher.js';

export interface MoveRequest {
  name: string;
  version: string;
  to: SkillStatusName;
  via: TransitionTrigger;
  actor: string;
  reason: string | null;
  forced?: boolean;
  evidence?: Record<string, unknown>;
  patch?: VersionPatch;
}

const MAX_ATTEMPTS = 5;

/**
 * Moves one skill version through the lifecycle table. Moves on one version serialise on its
 * optimistic-lock column: the loser re-reads and is judged against the new state.
 */
@Injectable()
export class LifecycleService {
  constructor(
    private readonly repository: SkillsRepository,
    private readonly catalog: SkillCatalog,
    private readonly events: LifecycleEventsPublisher,
  ) {}

  async move(request: MoveRequest): Promise<SkillVersionRecord> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.repository.findVersion(request.name, request.version);
      if (!current) throw new SkillNotFound(request.name, request.version);
      if (!findTransition(current.status, request.to, request.via)) {
        throw new InvalidTransition(current.name, current.version, current.status, request.to, allowedTransitions(current.status));
      }
      const event: NewLifecycleEvent = {
        from: current.status,
        to: request.to,
        actor: request.actor,
        reason: request.reason,
        forced: request.forced ?? false,
        evidence: request.evidence ?? {},
      };
      const updated = await this.repository.updateVersion(current, request.to, request.patch ?? {}, event);
      if (updated) {
        this.catalog.applyVersion(updated);
        await this.events.publish(updated.name, updated.version, event);
        return updated;
      }
    }
    throw new ConcurrentModification(request.name, request.version);
  }
}
