import { Injectable } from '@nestjs/common';
import { InvalidSchemaError, checkCompatibility } from '#schema-compat/index.js';
import { SchemaInvalid } from '../problem/domain-errors.js';
import { SkillQueries } from '../skills/skill-queries.js';
import { compareVersions } from './version-compatibility.js';

/** The compatibility checks callers can ask for: two schemas, or two stored versions of a skill. */
@Injectable()
export class CompatibilityQueries {
  constructor(private readonly skills: SkillQueries) {}

  /** Stateless: `old` → `new` in `direction`; a schema invalid in its dialect (or of a dialect not read) is a 422. */
  check(oldSchema: unknown, newSchema: unknown, direction: 'backward' | 'forward' | 'full') {
    try {
      return checkCompatibility(oldSchema, newSchema, direction);
    } catch (error) {
      if (error instanceof InvalidSchemaError) throw new SchemaInvalid(error.schema, error.problems);
      throw error;
    }
  }

  /** The report between two stored versions, as registration computed it (under `to`'s policy). */
  between(name: string, from: string, to: string) {
    return compareVersions(this.skills.version(name, from), this.skills.version(name, to));
  }
}
