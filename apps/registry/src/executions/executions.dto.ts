import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { z } from 'zod';
import { EXECUTION_STATUSES } from '../../../../libs/executions/src/index.js';
import { ExecutionNotFound, RequestInvalid } from '../problem/domain-errors.js';

export class ExecuteSkillBody {
  @ApiProperty({ description: "Input matching the version's input_schema", type: 'object', additionalProperties: true })
  @IsObject()
  input!: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Pin a version (name@version); default: the current version' })
  @IsOptional()
  @IsString()
  @Matches(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, { message: 'version must be a semantic version' })
  version?: string;

  @ApiPropertyOptional({ description: 'Agent session the execution belongs to' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  session_id?: string;
}

function parseOrThrow<T extends z.ZodType>(schema: T, raw: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: key, message: `unknown ${what} parameter '${key}'` }))
      : [{ field: issue.path.join('.') || what, message: issue.message }],
  );
  throw new RequestInvalid(`${what} is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
}

export const MAX_WAIT_SECONDS = 60;

const executeQuery = z.object({ wait: z.coerce.number().min(0).max(MAX_WAIT_SECONDS).optional() }).strict();
export const parseExecuteQuery = (raw: unknown) => parseOrThrow(executeQuery, raw, 'query');

const idempotencyKey = z.string().min(1).max(200).regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');
export const parseIdempotencyKey = (raw: unknown): string | undefined =>
  raw === undefined ? undefined : parseOrThrow(idempotencyKey, raw, 'Idempotency-Key header');

const listQuery = z
  .object({
    skill: z.string().min(1).max(100).optional(),
    status: z.enum(EXECUTION_STATUSES).optional(),
    session_id: z.string().min(1).max(200).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    cursor: z.string().regex(/^[A-Za-z0-9_-]{1,512}$/, 'must be a next_cursor returned by this API').optional(),
  })
  .strict();
export const parseListExecutionsQuery = (raw: unknown) => parseOrThrow(listQuery, raw, 'query');

export const executionIdParam = z.uuid({ message: 'execution ids are UUIDs' });
/** Execution ids are UUIDs; anything else cannot name an execution. */
export function parseExecutionId(raw: string): string {
  const parsed = executionIdParam.safeParse(raw);
  if (!parsed.success) throw new ExecutionNotFound(raw);
  return parsed.data;
}
