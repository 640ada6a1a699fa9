import { Injectable } from '@nestjs/common';
import { CursorInvalid, decodeCursor, encodeCursor } from '#contracts/index.js';
import { ExecutionsRepository, type ExecutionRecord, type ExecutionStatus } from '#executions/index.js';
import { dependentsView } from '../dependencies/dependents-view.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import { ExecutionNotFound, SkillNotFound } from '../problem/domain-errors.js';

export interface ListExecutionsQuery {
  skill?: string;
  status?: ExecutionStatus;
  sessionId?: string;
  /** ISO 8601 times: created at or after `since`, before `until`. */
  since?: string;
  until?: string;
  limit: number;
  cursor?: string;
}

const ISSUED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The position an executions cursor encodes, exactly as issued (`<ISO time>|<uuid>`), or CursorInvalid. */
function decodeExecutionsCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id, extra] = decodeCursor(cursor).split('|');
  const createdAt = new Date(at ?? '');
  if (extra !== undefined || !at || !ISSUED_AT.test(at) || Number.isNaN(createdAt.getTime()) || !id || !UUID.test(id)) {
    throw new CursorInvalid('not an executions cursor');
  }
  return { createdAt, id };
}

/** Read-side use-cases of executions, shared by every transport (REST, gRPC, MCP). */
@Injectable()
export class ExecutionQueries {
  constructor(
    private readonly executions: ExecutionsRepository,
    private readonly catalog: SkillCatalog,
  ) {}

  async get(id: string): Promise<ExecutionRecord> {
    const execution = await this.executions.findById(id);
    if (!execution) throw new ExecutionNotFound(id);
    return execution;
  }

  /** The execution with the version it ran, when the catalog still has it (for the deprecation signals). */
  async getWithVersion(id: string): Promise<{ execution: ExecutionRecord; version: SkillVersionRecord | null }> {
    const execution = await this.get(id);
    return { execution, version: this.catalog.version(execution.skillName, execution.version) ?? null };
  }

  /** Newest first; `nextCursor` continues after the last item. */
  async list(query: ListExecutionsQuery): Promise<{ items: ExecutionRecord[]; nextCursor: string | null }> {
    let after: { createdAt: Date; id: string } | undefined;
    if (query.cursor) {
      after = decodeExecutionsCursor(query.cursor);
    }
    const rows = await this.executions.list({
      skill: query.skill,
      status: query.status,
      sessionId: query.sessionId,
      since: query.since === undefined ? undefined : new Date(query.since),
      until: query.until === undefined ? undefined : new Date(query.until),
      limit: query.limit + 1,
      after,
    });
    const items = rows.slice(0, query.limit);
    const last = items[items.length - 1];
    return { items, nextCursor: rows.length > query.limit && last ? encodeCursor(`${last.createdAt.toISOString()}|${last.id}`) : null };
  }

  /** Per version: executions, distinct callers and sessions in the last 7/30/90 days, and the last call ever. */
  async usage(name: string) {
    const skill = this.catalog.get(name);
    if (!skill) throw new SkillNotFound(name);
    const usage = new Map((await this.executions.usage(name)).map((row) => [row.version, row]));
    const lastCalls = await this.executions.lastCalls(name);
    const empty = { executions: 0, callers: 0, sessions: 0 };
    return {
      skill: name,
      versions: skill.versions.map((version) => ({
        version: version.version,
        status: version.status,
        windows: usage.get(version.version)?.windows ?? { '7d': empty, '30d': empty, '90d': empty },
        last_called_at: lastCalls.get(version.version)?.toISOString() ?? null,
      })),
      // Who calls it, beside who depends on it: both matter before a deprecation.
      dependents: dependentsView(name, this.catalog).items,
    };
  }
}
