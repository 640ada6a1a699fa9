import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { SKILL_STATUSES, type SkillStatusName } from '../../../../libs/contracts/src/index.js';

export class ListSkillsQuery {
  @ApiPropertyOptional({ description: 'Only skills of this engineering domain' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  domain?: string;

  @ApiPropertyOptional({ description: 'Only skills owned by this agent' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  agent?: string;

  @ApiPropertyOptional({ description: 'Only skills usable at this phase (phase ≤ n)', minimum: 1, maximum: 3 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(3)
  phase?: number;

  @ApiPropertyOptional({ enum: SKILL_STATUSES, description: 'Status of the current version (default: all but ARCHIVED)' })
  @IsOptional()
  @IsIn(SKILL_STATUSES)
  status?: SkillStatusName;

  @ApiPropertyOptional({ type: [String], description: 'Repeatable; every tag must match' })
  @IsOptional()
  @Transform(({ value }) => (Array.isArray(value) ? value : [value]))
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  @ArrayMaxSize(20)
  tag?: string[];

  @ApiPropertyOptional({ description: 'Case-insensitive substring of the name or description' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'Opaque cursor from a previous page (next_cursor)' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,512}$/, { message: 'cursor must be a next_cursor returned by this API' })
  cursor?: string;
}
