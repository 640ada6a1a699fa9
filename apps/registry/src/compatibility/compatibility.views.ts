import { z } from 'zod';
import { COMPATIBILITY_POLICIES } from '#skill-loader/index.js';
import { apiComponent } from '../openapi/openapi-components.js';

/** The wire views of the compatibility checks (libs/schema-compat and version-compatibility.ts return exactly these). */

const schemaChangeView = apiComponent(
  'SchemaChange',
  z.object({
    code: z.string().describe('Stable identifier of the kind of change, e.g. `REQUIRED_ADDED`'),
    breaking: z.boolean().describe('Whether this change makes the schemas incompatible in the checked direction'),
    old_pointer: z.string().describe("JSON pointer into the old schema ('' is the root)"),
    new_pointer: z.string().describe('JSON pointer into the new schema'),
    message: z.string(),
  }),
  'One difference between two JSON Schemas',
);

export const compatibilityReportView = apiComponent(
  'CompatibilityReport',
  z.object({ compatible: z.boolean(), changes: z.array(schemaChangeView) }),
  'The verdict of a compatibility check with every change found',
);

export const versionCompatibilityView = apiComponent(
  'VersionCompatibility',
  z.object({
    from: z.string(),
    to: z.string(),
    policy: z.enum(COMPATIBILITY_POLICIES),
    breaking_allowed: z.boolean().describe("Whether `to` may break `from`'s contract (outside ^from, a pre-release, or policy none)"),
    input: compatibilityReportView.extend({ direction: z.enum(['backward', 'full']) }),
    output: compatibilityReportView.extend({ direction: z.enum(['forward', 'full']) }),
    compatible: z.boolean(),
    accepted: z.boolean().describe('Compatible, or breaking allowed: whether registration accepts `to` after `from`'),
  }),
  "The report between two versions of one skill, under the newer one's policy",
);

export type CompatibilityReportView = z.input<typeof compatibilityReportView>;
export type VersionCompatibilityView = z.input<typeof versionCompatibilityView>;
