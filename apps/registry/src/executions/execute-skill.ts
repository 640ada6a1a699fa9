import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JsonSchemaValidator, type RunContract, isExecutable } from '#contracts/index.js';
import {
  BatchedExecutionWrites,
  ExecutionEventLog,
  ExecutionQueue,
  ExecutionsRepository,
  isTerminal,
  maxAttemptsFor,
  queuedRecordOf,
  type ExecutionPurpose,
  type ExecutionRecord,
  type NewExecution,
} from '#executions/index.js';
import { TwinStore } from '#twin/index.js';
import { ROOT_TRACE_CONTEXT, SpanKind, type TraceContext, startSpan, traceIdOf, traceparentOf } from '#observability/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import { resolveVersion } from '../catalog/version-resolution.js';
import { RegistryHooks } from '../hooks/registry-hooks.js';
import {
  executionLost,
  IdempotencyKeyReused,
  InputInvalid,
  QueueUnavailable,
  SkillNotExecutable,
  SkillNotFound,
} from '../problem/domain-errors.js';
import { contractToRun } from './contract-to-run.js';
import { ExecutionWaiters, type FinishListener } from './execution-infrastructure.js';

export interface ExecuteCommand {
  name: string;
  version?: string;
  /** The tool of a multi-tool (Agent Skills) skill: its name or `<skill>__<tool>`. */
  tool?: string;
  input: Record<string, unknown>;
  sessionId?: string;
  caller: string;
  idempotencyKey?: string;
  /** Seconds to wait for the result (0 = return at once). */
  waitSeconds?: number;
  /** The digital twin branch the execution works on (default main); it must exist. */
  branch?: string;
  /** The caller's trace context (a request's `traceparent`); the execution's attempts continue it. */
  traceContext?: TraceContext;
  /** Promotion runs may execute REGISTERED versions; calls only ACTIVE/DEPRECATED ones. */
  purpose?: ExecutionPurpose;
}

export interface ExecuteResult {
  execution: ExecutionRecord;
  version: SkillVersionRecord;
  /** False when an Idempotency-Key returned an execution created earlier. */
  created: boolean;
}

/**
 * Validates and enqueues an execution. Bad input, and a refusal of a pre_flight hook, are answered before anything
 * is stored or queued; the job carries only the execution id.
 */
@Injectable()
export class ExecuteSkill {
  private readonly validator = new JsonSchemaValidator();

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly executions: ExecutionsRepository,
    /** Creates, group-committed: the job is enqueued only once the row is committed. */
    private readonly writes: BatchedExecutionWrites,
    private readonly events: ExecutionEventLog,
    private readonly waiters: ExecutionWaiters,
    private readonly queue: ExecutionQueue,
    private readonly twin: TwinStore,
    private readonly hooks: RegistryHooks,
  ) {}

  async execute(command: ExecuteCommand): Promise<ExecuteResult> {
    const purpose = command.purpose ?? 'call';
    const version = this.resolveVersion(command.name, command.version);
    const executable =
      purpose === 'promotion' ? version.status === 'REGISTERED' || isExecutable(version.status) : isExecutable(version.status);
    if (!executable) throw new SkillNotExecutable(version.name, version.version, version.status);
    const contract = contractToRun(version, command.tool);
    const violations = contract.inputSchema ? this.validator.validate(contract.inputSchema, command.input) : [];
    if (violations.length > 0) throw new InputInvalid(version.name, version.version, violations);
    const branch = command.branch ?? 'main';
    // Known branches are cached (they never change), so this costs a query only for a branch not seen before.
    if (branch !== 'main') await this.twin.lineage(branch);
    const unavailable = this.queue.unavailableReason();
    if (unavailable !== null) throw new QueueUnavailable(unavailable);
    // Seed 001 §4.1 pre_flight: before anything is queued (a refusal stores nothing; the idempotency key stays unused).
    const metadata = await this.hooks.preFlight(version, {
      caller: command.caller,
      sessionId: command.sessionId ?? null,
      input: command.input,
    });

    const requestHash = command.idempotencyKey
      ? createHash('sha256')
          .update(
            JSON.stringify([
              command.name,
              command.version ?? null,
              command.sessionId ?? null,
              canonical(command.input),
              contract.tool?.name ?? contract.workflow?.name ?? null,
              // Left out for main, so keys given before branches existed still match their requests.
              ...(branch === 'main' ? [] : [branch]),
            ]),
          )
          .digest('hex')
      : null;
    // A span for the enqueue; with export off it only carries the caller's context, so the trace id still lands on the row.
    const trace = startSpan(`execute ${version.name}`, command.traceContext ?? ROOT_TRACE_CONTEXT, {
      kind: SpanKind.PRODUCER,
      attributes: { 'skill.name': version.name, 'skill.version': version.version },
    });
    try {
      return await this.enqueue(command, version, contract, purpose, requestHash, trace.context, metadata);
    } finally {
      trace.span.end();
    }
  }

  private async enqueue(
    command: ExecuteCommand,
    version: SkillVersionRecord,
    contract: RunContract,
    purpose: ExecutionPurpose,
    requestHash: string | null,
    traceContext: TraceContext,
    metadata: Record<string, unknown> | undefined,
  ): Promise<ExecuteResult> {
    const branch = command.branch ?? 'main';
    const execution = {
      skillVersionId: version.id,
      skillName: version.name,
      version: version.version,
      purpose,
      input: command.input,
      tool: contract.tool?.name ?? contract.workflow?.name ?? null,
      branch,
      traceId: traceIdOf(traceContext),
      traceParent: traceparentOf(traceContext),
      maxAttempts: maxAttemptsFor(contract),
      warnings: version.status === 'DEPRECATED' ? [deprecationNotice(version)] : [],
      sessionId: command.sessionId ?? null,
      caller: command.caller,
      idempotencyKey: command.idempotencyKey ?? null,
      requestHash,
    };
    // An input some hook redacts stays out of the job (whose data outlives the run in Redis): the executor reads the row.
    const redactedInput = this.hooks.redactedInput(version, command.input);
    // Without an idempotency key the insert cannot find an earlier execution: the job goes out alongside it instead of
    // after its commit (a round trip less on the way of a call), and the executor waits for a row it finds missing
    // (ExecutionJob.early). If the insert fails, its error is the answer; the job finds no row and is dropped.
    if (!command.idempotencyKey) {
      const id = randomUUID();
      // Listen before enqueueing, so even an instant result cannot be missed.
      const listener = command.waitSeconds ? this.waiters.listen(id) : null;
      const stored = this.create({ ...execution, id }, command.waitSeconds);
      // After the insert's flush has gone out (GroupCommit flushes in the check phase): the database works on it while
      // this process builds the job.
      const sent = new Promise((resolve) => setImmediate(resolve)).then(() =>
        this.send(queuedRecordOf(id, execution, new Date()), version, metadata, redactedInput, true),
      );
      const [created, queued] = await Promise.allSettled([stored, sent]);
      if (created.status === 'rejected') {
        listener?.dispose();
        throw created.reason;
      }
      return this.answer(created.value.record, version, queued, redactedInput, listener, command.waitSeconds);
    }
    const { record, created } = await this.create(execution, command.waitSeconds);
    if (!created) {
      if (record.requestHash !== requestHash) throw new IdempotencyKeyReused(command.idempotencyKey, record.id);
      // The execution of an earlier request with this key, which may have been a waiting call's.
      const latest = await this.waitIfAsked(record, command.waitSeconds);
      return { execution: isTerminal(latest.status) ? latest : await this.storedNow(record.id), version, created };
    }
    const listener = command.waitSeconds ? this.waiters.listen(record.id) : null;
    const [sent] = await Promise.allSettled([this.send(record, version, metadata, redactedInput, false)]);
    return this.answer(record, version, sent, redactedInput, listener, command.waitSeconds);
  }

  /**
   * Stores a new execution, group-committed. A waiting call's create is not flushed to disk by itself (one flush fewer
   * per synchronous call): the finish it waits for is, and any earlier answer goes through storedNow.
   */
  private create(execution: NewExecution, waitSeconds: number | undefined): Promise<{ record: ExecutionRecord; created: boolean }> {
    return waitSeconds ? this.writes.createAwaited(execution) : this.writes.create(execution);
  }

  /** The 'queued' event and the job. Both go out on one connection, in this order: 'queued' always precedes the executor's events. */
  private async send(
    record: ExecutionRecord,
    version: SkillVersionRecord,
    metadata: Record<string, unknown> | undefined,
    redactedInput: Record<string, unknown> | undefined,
    early: boolean,
  ): Promise<void> {
    const subject = { executionId: record.id, skill: version.name, sessionId: record.sessionId };
    await Promise.all([
      this.events.append(subject, {
        type: 'queued',
        at: new Date().toISOString(),
        skill: version.name,
        version: version.version,
        ...(metadata ? { metadata } : {}),
      }),
      this.queue.enqueue(record.id, redactedInput ? undefined : record, early),
    ]);
  }

  /**
   * The answer for a stored new execution whose job was `sent` (or not: then it is failed, QUEUE_UNAVAILABLE): at once,
   * or with a listener, its end (or its state when the wait ran out).
   */
  private async answer(
    record: ExecutionRecord,
    version: SkillVersionRecord,
    sent: PromiseSettledResult<void>,
    redactedInput: Record<string, unknown> | undefined,
    listener: FinishListener | null,
    waitSeconds: number | undefined,
  ): Promise<ExecuteResult> {
    if (sent.status === 'rejected') {
      listener?.dispose();
      const reason = (sent.reason as Error).message;
      await this.executions.finish(record.id, 'FAILED', {
        ...(redactedInput ? { input: redactedInput } : {}),
        error: { code: 'QUEUE_UNAVAILABLE', message: 'The execution could not be queued', details: { reason } },
      });
      throw new QueueUnavailable(reason);
    }
    if (!listener) return { execution: record, version, created: true };
    const finished = await listener.wait((waitSeconds as number) * 1000);
    return { execution: finished ?? (await this.storedNow(record.id)), version, created: true };
  }

  /**
   * The execution as stored, for an answer before its end (or when its end was announced by id alone). A terminal
   * row is on disk (a finish is a flushed commit, and it becomes visible only then); any other is read so that it
   * is on disk before it is answered, since a waiting call's create is not flushed by itself: if the database
   * crashed before that, the execution is gone, and the caller is told so rather than given its id.
   */
  private async storedNow(id: string): Promise<ExecutionRecord> {
    const latest = await this.executions.findById(id);
    if (latest && isTerminal(latest.status)) return latest;
    const stored = await this.executions.findByIdFlushed(id);
    if (!stored) throw executionLost(id);
    return stored;
  }

  /** Waits up to `seconds` for an existing execution to reach a terminal state; returns the freshest record. */
  async waitIfAsked(record: ExecutionRecord, seconds: number | undefined, signal?: AbortSignal): Promise<ExecutionRecord> {
    if (!seconds || isTerminal(record.status)) return record;
    const listener = this.waiters.listen(record.id);
    const latest = (await this.executions.findById(record.id)) ?? record;
    if (isTerminal(latest.status)) {
      listener.dispose();
      return latest;
    }
    return (await listener.wait(seconds * 1000, signal)) ?? (await this.executions.findById(record.id)) ?? latest;
  }

  private resolveVersion(name: string, version: string | undefined): SkillVersionRecord {
    const skill = this.catalog.get(name);
    if (!skill) throw new SkillNotFound(name);
    return resolveVersion(skill, version);
  }
}

function deprecationNotice(version: SkillVersionRecord): string {
  const parts = [`Skill '${version.name}' ${version.version} is deprecated: ${version.deprecationReason ?? 'no reason given'}`];
  if (version.deprecationSuccessor) parts.push(`use '${version.deprecationSuccessor}' instead`);
  if (version.deprecationSunset) parts.push(`it stops working after ${version.deprecationSunset.toISOString()}`);
  return parts.join('; ');
}

/** JSON with sorted keys, so equal inputs hash equally whatever their key order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
