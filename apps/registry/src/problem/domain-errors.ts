import { clip, printable } from '#contracts/strict-json.js';
import { isDatabaseUnavailable, isPoolExhausted, isStatementCancelled } from '#database/pg-pool.js';
import { ArchiveRejected, PackageTooLarge } from '#package-store/index.js';
import { TwinFailure } from '#twin/index.js';

/**
 * Typed errors of the registry's domain. They carry a stable code and the facts a client needs;
 * each transport maps them (REST: problem-details.filter.ts). No transport concern lives here.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class SkillNotFound extends DomainError {
  readonly code = 'SKILL_NOT_FOUND';
  /** `existing`: the versions there are (`1.0.0 (ACTIVE)`), named in the message when a version or range matched none. */
  constructor(name: string, version?: string, existing?: string[]) {
    super(
      version
        ? `Skill '${name}' has no ${/^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$/.test(version) ? 'version' : 'executable version in range'} ${version}${existing ? `; it has ${existing.join(', ') || 'no versions'}` : ''}`
        : `No skill named '${name}'`,
      { name, version, ...(existing ? { versions: existing } : {}) },
    );
  }
}

export class InvalidTransition extends DomainError {
  readonly code = 'INVALID_TRANSITION';
  constructor(name: string, version: string, from: string, to: string, allowed: { to: string; via: string }[], why?: string) {
    super(
      why ??
        `Skill '${name}' ${version} is ${from}; it cannot move to ${to}. Allowed: ${
          allowed.map((move) => `${move.to} (${move.via})`).join(', ') || 'none'
        }`,
      { name, version, current_status: from, requested_status: to, allowed_transitions: allowed },
    );
  }
}

export class PromotionEvidenceMissing extends DomainError {
  readonly code = 'PROMOTION_EVIDENCE_FAILED';
  constructor(name: string, version: string, failures: string[], evidence: Record<string, unknown>) {
    super(`Skill '${name}' ${version} cannot be promoted: ${failures.join('; ')}. Fix the package or force the promotion with a reason.`, {
      name,
      version,
      failures,
      evidence,
    });
  }
}

export class VersionImmutable extends DomainError {
  readonly code = 'VERSION_IMMUTABLE';
  /** `storedHash`: the content hash the version keeps (the new content is refused). */
  constructor(name: string, version: string, status: string, storedHash: string | null) {
    super(`Skill '${name}' ${version} is ${status} with other content; versions are immutable — bump the version in definition.json`, {
      name,
      version,
      current_status: status,
      content_hash: storedHash,
    });
  }
}

export class ScriptToolNotFound extends DomainError {
  readonly code = 'TOOL_NOT_FOUND';
  constructor(name: string, version: string, tool: string, tools: string[]) {
    super(`Skill '${name}' ${version} has no tool '${tool}'; its tools: ${tools.join(', ') || 'none'}`, { name, version, tool, tools });
  }
}

export class PackageFileNotFound extends DomainError {
  readonly code = 'PACKAGE_FILE_NOT_FOUND';
  constructor(name: string, version: string, path: string) {
    super(`Skill '${name}' ${version} has no file '${path}'; GET .../files lists them`, { name, version, path });
  }
}

export class SchemaInvalid extends DomainError {
  readonly code = 'SCHEMA_INVALID';
  constructor(schema: string, problems: readonly string[]) {
    // Read in the dialect its $schema names (draft-06, draft-07, 2019-09, 2020-12 when absent).
    super(`The ${schema} schema is not a JSON Schema the checker reads: ${problems.join('; ')}`, { schema, problems });
  }
}

export class DependentsExist extends DomainError {
  readonly code = 'DEPENDENTS_EXIST';
  constructor(name: string, dependents: string[]) {
    super(
      `ACTIVE skills depend on '${name}' and would have no ACTIVE version in their range: ${dependents.join(', ')}; deprecate them first, or send "force": true with the reason`,
      { name, dependents },
    );
  }
}

export class PathOutsideSkillPaths extends DomainError {
  readonly code = 'PATH_OUTSIDE_SKILL_PATHS';
  constructor(requested: string, roots: string[]) {
    super(`Path '${requested}' does not resolve inside a SKILL_PATHS root (${roots.join(', ')})`, { path: requested, roots });
  }
}

export class PackageNotFound extends DomainError {
  readonly code = 'PACKAGE_NOT_FOUND';
  constructor(requested: string) {
    super(`No skill package at '${requested}' (no definition.json, handler.ts or SKILL.md there)`, { path: requested });
  }
}

export class AgentNotFound extends DomainError {
  readonly code = 'AGENT_NOT_FOUND';
  constructor(agent: string, agents: string[]) {
    super(`No agent '${agent}' owns an ACTIVE skill here; agents: ${agents.join(', ') || 'none'}`, { agent, agents });
  }
}

export class NotAPackage extends DomainError {
  readonly code = 'NOT_A_PACKAGE';
  constructor(requested: string) {
    super(
      `'${printable(clip(requested, 200))}' is a directory but not a skill package: it has no definition.json, handler.ts or SKILL.md of its own (packages sit at <root>/<domain>/<skill_name>/)`,
      { path: clip(requested, 200) },
    );
  }
}

export class RequestInvalid extends DomainError {
  readonly code = 'VALIDATION_FAILED';
  constructor(
    message: string,
    readonly errors: { field: string; message: string }[],
  ) {
    super(message, { errors });
  }
}

export class ConcurrentModification extends DomainError {
  readonly code = 'CONCURRENT_MODIFICATION';
  constructor(name: string, version: string) {
    super(`Skill '${name}' ${version} was changed by another request; retry`, { name, version });
  }
}

export class SkillNotExecutable extends DomainError {
  readonly code = 'SKILL_NOT_EXECUTABLE';
  /** `reason`: why, when it is not the status (a tool that cannot run on this platform). */
  constructor(name: string, version: string, status: string, reason?: string) {
    const why: Record<string, string> = {
      DRAFT: 'its package failed validation',
      REGISTERED: 'it has not been promoted to ACTIVE yet',
      ARCHIVED: 'its package was removed from disk',
    };
    super(`Skill '${name}' ${version} is ${status} and cannot be executed: ${reason ?? why[status] ?? 'not executable'}`, {
      name,
      version,
      current_status: status,
    });
  }
}

export class InputInvalid extends DomainError {
  readonly code = 'INPUT_INVALID';
  constructor(
    name: string,
    version: string,
    readonly violations: { pointer: string; message: string }[],
  ) {
    super(`Input does not match the input schema of '${name}' ${version}`, { name, version, errors: violations });
  }
}

export class IdempotencyKeyReused extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
  constructor(key: string, executionId: string) {
    super(`Idempotency-Key '${key}' was already used for a different request (execution ${executionId})`, {
      idempotency_key: key,
      execution_id: executionId,
    });
  }
}

export class QueueUnavailable extends DomainError {
  readonly code = 'QUEUE_UNAVAILABLE';
  constructor(reason: string, whatFails = 'Executions cannot be accepted right now') {
    super(`${whatFails}: the queue (Redis) is unavailable (${reason}); retry shortly`, {});
  }
}

/** A pre_flight hook refused the execution (deny, require_tag): nothing was stored or queued. */
export class HookDenied extends DomainError {
  readonly code = 'HOOK_DENIED';
  constructor(hook: string, reason: string, action?: string) {
    super(`Refused by hook '${hook}' before anything was queued: ${reason}`, {
      hook,
      phase: 'pre_flight',
      reason,
      ...(action ? { action } : {}),
    });
  }
}

/** A pre_flight rate_limit hook refused the execution: the caller has used the skill's allowance for now. */
export class RateLimited extends DomainError {
  readonly code = 'RATE_LIMITED';
  constructor(hook: string, reason: string, retryAfterSeconds: number) {
    super(`Refused by hook '${hook}': ${reason}`, { hook, phase: 'pre_flight', reason, retry_after_seconds: retryAfterSeconds });
  }
}

/** A fail-closed pre_flight hook failed (its webhook or counter is unreachable): nothing was stored or queued. */
export class HookFailed extends DomainError {
  readonly code = 'HOOK_FAILED';
  constructor(hook: string, message: string) {
    super(`${message}; nothing was queued, retry shortly`, { hook, phase: 'pre_flight' });
  }
}

/** The registry follows as many event streams as it may (EVENT_STREAMS_MAX): a new one can open once others end. */
export class TooManyStreams extends DomainError {
  readonly code = 'TOO_MANY_STREAMS';
  constructor(max: number) {
    super(`This registry follows ${max} event streams already (EVENT_STREAMS_MAX); retry shortly`, { limit: max });
  }
}

/** One caller follows its share of event streams already (EVENT_STREAMS_PER_CALLER): it may open another once one of its own ends. */
export class TooManyStreamsForCaller extends DomainError {
  readonly code = 'TOO_MANY_STREAMS_FOR_CALLER';
  constructor(max: number) {
    super(`This caller follows ${max} event streams already (EVENT_STREAMS_PER_CALLER); close one of them first`, { limit: max });
  }
}

export class ExecutionNotFound extends DomainError {
  readonly code = 'EXECUTION_NOT_FOUND';
  constructor(id: string) {
    super(`No execution with id '${id}'`, { id });
  }
}

export class ExecutionFinished extends DomainError {
  readonly code = 'EXECUTION_FINISHED';
  constructor(id: string, status: string) {
    super(`Execution '${id}' already finished (${status}); it cannot be cancelled`, { id, current_status: status });
  }
}

export class DatabaseUnavailable extends DomainError {
  readonly code = 'DATABASE_UNAVAILABLE';
  constructor(message = 'The database is unavailable right now; retry shortly', details: Record<string, unknown> = {}) {
    super(message, details);
  }
}

/** An execution created for a waiting call was lost by a database crash before it reached the disk (see ExecuteSkill). */
export function executionLost(id: string): DatabaseUnavailable {
  return new DatabaseUnavailable(
    `Execution '${id}' was lost when the database restarted before it was stored; nothing of it was kept: send the request again`,
    { id },
  );
}

/**
 * The one place where infrastructure failures become domain errors every transport maps: an
 * unreachable database is DATABASE_UNAVAILABLE (503 / UNAVAILABLE), whatever driver raised it, and so is a wait for
 * a connection of a pool whose connections all stayed busy (details.reason 'connections_busy') and a statement Postgres
 * cancelled, over its statement timeout (details.reason 'statement_timeout').
 */
export function asDomainError(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  if (error instanceof PackageTooLarge) return new PackageOverLimit(error.message, error.limit, error.entry ?? null);
  if (error instanceof ArchiveRejected) {
    return error.limit ? new PackageOverLimit(error.message, error.limit, error.entry) : new ArchiveInvalid(error.message, error.entry);
  }
  if (error instanceof TwinFailure) return twinError(error);
  if (isPoolExhausted(error)) return databaseBusy();
  if (isStatementCancelled(error)) return statementCancelled();
  return isDatabaseUnavailable(error) ? new DatabaseUnavailable() : error;
}

/** Every connection of the registry's pool stayed in use while the request waited for one (PoolExhausted): a load peak, not an outage. */
function databaseBusy(): DatabaseUnavailable {
  return new DatabaseUnavailable('Every database connection of this registry stayed in use while the request waited; retry shortly', {
    reason: 'connections_busy',
  });
}

/** Postgres cancelled a statement of the request: over DATABASE_STATEMENT_TIMEOUT_MS (behind a lock, say), or by an operator. */
function statementCancelled(): DatabaseUnavailable {
  return new DatabaseUnavailable(
    'The database cancelled a statement of this request that ran too long (statement timeout); retry shortly',
    {
      reason: 'statement_timeout',
    },
  );
}

/** A refused twin operation, under the stable code of its reason (an INVALID one is VALIDATION_FAILED, like any bad request). */
export class TwinRefused extends DomainError {
  constructor(
    readonly code:
      | 'TWIN_BRANCH_NOT_FOUND'
      | 'TWIN_BRANCH_EXISTS'
      | 'WORK_PRODUCT_NOT_FOUND'
      | 'REVISION_NOT_FOUND'
      | 'KIND_MISMATCH'
      | 'TWIN_TOO_LARGE'
      | 'UNSUPPORTED_MEDIA_TYPE',
    message: string,
    details: Record<string, unknown>,
  ) {
    super(message, details);
  }
}

const TWIN_CODES = {
  BRANCH_NOT_FOUND: 'TWIN_BRANCH_NOT_FOUND',
  BRANCH_EXISTS: 'TWIN_BRANCH_EXISTS',
  WORK_PRODUCT_NOT_FOUND: 'WORK_PRODUCT_NOT_FOUND',
  REVISION_NOT_FOUND: 'REVISION_NOT_FOUND',
  KIND_MISMATCH: 'KIND_MISMATCH',
  TOO_LARGE: 'TWIN_TOO_LARGE',
  MEDIA_TYPE_UNSUPPORTED: 'UNSUPPORTED_MEDIA_TYPE',
} as const;

function twinError(failure: TwinFailure): DomainError {
  if (failure.reason === 'INVALID') return new RequestInvalid(`Request is invalid: ${printable(failure.message)}`, failure.errors);
  return new TwinRefused(TWIN_CODES[failure.reason], printable(failure.message), failure.details);
}

/** A package (on disk or in an archive) over one of its limits (PACKAGE_MAX_BYTES, ...). */
export class PackageOverLimit extends DomainError {
  readonly code = 'PACKAGE_TOO_LARGE';
  constructor(message: string, limit: string, entry: string | null) {
    super(message, { limit, ...(entry ? { entry: clip(entry, 200) } : {}) });
  }
}

/** An archive that cannot be a package (a link, an absolute path, not gzip, ...); nothing of it was kept. */
export class ArchiveInvalid extends DomainError {
  readonly code = 'ARCHIVE_REJECTED';
  constructor(message: string, entry: string | null) {
    super(printable(message), entry ? { entry: printable(clip(entry, 200)) } : {});
  }
}

/** A version whose package the store does not hold (registered before the store and not seen on disk since). */
export class PackageNotStored extends DomainError {
  readonly code = 'PACKAGE_NOT_STORED';
  constructor(name: string, version: string) {
    super(`The package of '${name}' ${version} is not in the package store (registered before it; rediscover it to store it)`, {
      name,
      version,
    });
  }
}

/** A published package that fails validation: nothing is stored; `report` is the loader's full report. */
export class PackageInvalid extends DomainError {
  readonly code = 'PACKAGE_INVALID';
  constructor(name: string, version: string, report: unknown[]) {
    super(`Package '${name}' ${version} is invalid; nothing was stored. Fix the errors in the report and publish again`, {
      name,
      version,
      report,
    });
  }
}

/** A request whose Host is not one this registry answers to (DNS-rebinding protection, ALLOWED_HOSTS). */
export class HostNotAllowed extends DomainError {
  readonly code = 'HOST_NOT_ALLOWED';
  constructor(host: string) {
    super(`Host '${printable(clip(host))}' is not one this registry answers to; add it to ALLOWED_HOSTS if it should be`, {});
  }
}

/** A browser request from a page of another origin. */
export class OriginNotAllowed extends DomainError {
  readonly code = 'ORIGIN_NOT_ALLOWED';
  constructor(origin: string) {
    super(`Origin '${printable(clip(origin))}' may not use this registry from a browser`, {});
  }
}
