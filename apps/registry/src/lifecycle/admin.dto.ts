import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsISO8601, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class RegisterSkillBody {
  @ApiProperty({ description: 'Package directory, absolute or relative, inside a SKILL_PATHS root' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  path!: string;
}

export class PromoteSkillBody {
  @ApiPropertyOptional({ description: 'Why; required when force is true' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;

  @ApiPropertyOptional({ description: 'Promote even if the evidence fails (recorded as forced)' })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

export class DeprecateSkillBody {
  @ApiProperty({ description: 'Why the skill is deprecated; shown to every caller' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  reason!: string;

  @ApiPropertyOptional({ description: 'One version; every ACTIVE version when absent' })
  @IsOptional()
  @IsString()
  @Matches(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, { message: 'version must be a semantic version' })
  version?: string;

  @ApiPropertyOptional({ description: 'Replacement skill, `name` or `name@version`' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z][a-z0-9_]*(@\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?)?$/, { message: 'successor must be a skill name, optionally @version' })
  successor?: string;

  @ApiPropertyOptional({ description: 'When the skill stops working (ISO 8601, in the future)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  sunset?: string;

  @ApiPropertyOptional({ description: 'Deprecate even though ACTIVE skills depend on it (the reason is recorded with them)' })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}
