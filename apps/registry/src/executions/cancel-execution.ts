import { Injectable } from '@nestjs/common';
import { ExecutionEventLog, ExecutionQueue, ExecutionsRepository, type ExecutionRecord } from '#executions/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { RegistryHooks } from '../hooks/registry-hooks.js';
import { ExecutionFinished, ExecutionNotFound, QueueUnavailable } from '../problem/domain-errors.js';
import { ExecuteSkill } from './execute-skill.js';

/**
 * Cancels a queued execution at once, or asks the executor running it to abort (the handler's
 * signal fires; a handler that ignores it is stopped after the executor's grace period).
 */
@Injectable()
export class CancelExecution {
  constructor(
    private readonly executions: ExecutionsRepository,
    private readonly events: ExecutionEventLog,
    private readonly executeSkill: ExecuteSkill,
    private readonly queue: ExecutionQueue,
    private readonly catalog: SkillCatalog,
    private readonly hooks: RegistryHooks,
  ) {}

  async cancel(id: string): Promise<ExecutionRecord> {
    const existing = await this.executions.findById(id);
    if (!existing) throw new ExecutionNotFound(id);
    const status = await this.executions.requestCancel(id);
    if (status === null) throw new ExecutionFinished(id, existing.status);
    const current = await this.executions.findById(id);
    if (current && current.status === 'QUEUED' && !current.attemptRunning) {
      // No executor saw it: the input is kept as the file's redact hooks leave it, here.
      const version = this.catalog.get(current.skillName)?.versions.find((candidate) => candidate.id === current.skillVersionId);
      const input = version ? this.hooks.redactedInput(version, current.input) : undefined;
      const cancelled = await this.executions.finish(id, 'CANCELLED', {
        ...(input ? { input } : {}),
        error: { code: 'CANCELLED', message: 'Execution cancelled before it started', details: {} },
      });
      if (cancelled) {
        await this.queue.remove(id);
        const subject = { executionId: id, skill: cancelled.skillName, sessionId: cancelled.sessionId };
        await this.events
          .append(subject, { type: 'cancelled', at: new Date().toISOString(), reason: 'cancelled before it started' })
          .catch(() => undefined);
        return cancelled;
      }
    }
    if (this.queue.unavailableReason() !== null) throw new QueueUnavailable('cannot reach the executor to cancel a running execution');
    await this.queue.announceCancel(id);
    return this.executeSkill.waitIfAsked((await this.executions.findById(id)) as ExecutionRecord, 5);
  }
}
