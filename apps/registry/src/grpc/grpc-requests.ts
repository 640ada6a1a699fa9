import { parseExecuteBody, parseExecuteQuery, parseIdempotencyKey, parseListExecutionsQuery } from '../executions/executions.dto.js';
import { RequestInvalid } from '../problem/domain-errors.js';
import { parseSearchSkillsQuery } from '../search/search.dto.js';
import { parseListSkillsQuery } from '../skills/skills.dto.js';
import { fromStruct, type ProtoStruct } from './proto-values.js';

/**
 * gRPC requests to the use-cases' inputs, checked by the same parsers as the REST queries and bodies
 * (so the limits and formats are the same); errors name the proto fields. In proto3 an empty string,
 * zero or unspecified enum means "not given".
 */

/** A required string field; empty means missing. */
export function required(value: string | undefined, field: string): string {
  if (!value) throw new RequestInvalid(`${field} is required`, [{ field, message: 'is required' }]);
  return value;
}

/** A scalar field's value; proto3's empty string and zero mean "not given". */
export function given<T>(value: T | '' | 0 | null | undefined): T | undefined {
  return value === '' || value === 0 || value === null || value === undefined ? undefined : value;
}

/** An enum field; proto-loader gives a value outside the enum as its number, which is refused here. */
function enumGiven(value: string | number | undefined, field: string): string | undefined {
  if (typeof value === 'number' && value !== 0) {
    throw new RequestInvalid(`${field}: ${value} is not a value of the enum`, [{ field, message: `${value} is not a value of the enum` }]);
  }
  return !value || typeof value !== 'string' || value.endsWith('_UNSPECIFIED') ? undefined : value;
}

function tagsGiven(tags: string[] | undefined): string[] | undefined {
  return tags && tags.length > 0 ? tags : undefined;
}

/** Runs a REST parser and renames the fields its errors name to the proto's names. */
function withProtoFields<T>(parse: () => T, names: Record<string, string>): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof RequestInvalid)) throw error;
    const errors = error.errors.map((entry) => ({ ...entry, field: names[entry.field] ?? entry.field }));
    throw new RequestInvalid(`Request is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
  }
}

export interface ListSkillsRequest {
  domain?: string;
  agent?: string;
  phase?: number;
  status?: string;
  tags?: string[];
  q?: string;
  limit?: number;
  cursor?: string;
}

export function parseListSkills(request: ListSkillsRequest) {
  const query = withProtoFields(
    () =>
      parseListSkillsQuery(
        compact({
          domain: given(request.domain),
          agent: given(request.agent),
          phase: given(request.phase),
          status: enumGiven(request.status, 'status'),
          tag: tagsGiven(request.tags),
          q: given(request.q),
          limit: given(request.limit),
          cursor: given(request.cursor),
        }),
      ),
    { tag: 'tags' },
  );
  return {
    domain: query.domain,
    agent: query.agent,
    phase: query.phase,
    status: query.status,
    tags: query.tag,
    q: query.q,
    limit: query.limit,
    cursor: query.cursor,
  };
}

export interface SearchSkillsRequest {
  q?: string;
  domain?: string;
  agent?: string;
  tags?: string[];
  status?: string;
  phase?: number;
  limit?: number;
}

export function parseSearchSkills(request: SearchSkillsRequest) {
  const query = withProtoFields(
    () =>
      parseSearchSkillsQuery(
        compact({
          q: request.q ?? '',
          domain: given(request.domain),
          agent: given(request.agent),
          tag: tagsGiven(request.tags),
          status: enumGiven(request.status, 'status'),
          phase: given(request.phase),
          limit: given(request.limit),
        }),
      ),
    { tag: 'tags' },
  );
  return {
    text: query.q,
    domain: query.domain,
    agent: query.agent,
    tags: query.tag,
    status: query.status,
    phase: query.phase,
    limit: query.limit,
  };
}

export interface ListExecutionsRequest {
  skill?: string;
  status?: string;
  session_id?: string;
  limit?: number;
  cursor?: string;
}

export function parseListExecutions(request: ListExecutionsRequest) {
  const query = parseListExecutionsQuery(
    compact({
      skill: given(request.skill),
      status: enumGiven(request.status, 'status'),
      session_id: given(request.session_id),
      limit: given(request.limit),
      cursor: given(request.cursor),
    }),
  );
  return { skill: query.skill, status: query.status, sessionId: query.session_id, limit: query.limit, cursor: query.cursor };
}

export interface ExecuteSkillRequest {
  name?: string;
  input?: ProtoStruct | null;
  version?: string;
  session_id?: string;
  idempotency_key?: string;
  wait_seconds?: number;
  tool?: string;
  branch?: string;
}

export function parseExecuteSkill(request: ExecuteSkillRequest) {
  const name = required(request.name, 'name');
  if (!request.input) {
    throw new RequestInvalid('input is required (send an empty object for none)', [{ field: 'input', message: 'must be a JSON object' }]);
  }
  const body = parseExecuteBody(
    compact({
      input: fromStruct(request.input),
      version: given(request.version),
      session_id: given(request.session_id),
      tool: given(request.tool),
      branch: given(request.branch),
    }),
  );
  const { wait } = withProtoFields(() => parseExecuteQuery(compact({ wait: given(request.wait_seconds) })), { wait: 'wait_seconds' });
  const idempotencyKey = withProtoFields(() => parseIdempotencyKey(given(request.idempotency_key)), {
    'Idempotency-Key header': 'idempotency_key',
  });
  return {
    name,
    version: body.version,
    tool: body.tool,
    branch: body.branch,
    input: body.input,
    sessionId: body.session_id,
    idempotencyKey,
    waitSeconds: wait,
  };
}

/** The entries that are not undefined (the REST parsers are strict about unknown and undefined keys alike). */
export function compact<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}
