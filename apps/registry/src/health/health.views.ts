import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';
import { packageRefusal } from '../versions/admin.views.js';
import { validationIssueView } from '../skills/skill.views.js';

/** The wire views of the probes and GET /v1/health (health.controller.ts and registry-health.ts return exactly these). */

export const livenessView = apiComponent('Liveness', z.object({ status: z.literal('ok') }));

const checkResults = z.record(z.string(), z.looseObject({ status: z.enum(['up', 'down']) }));

export const readinessView = apiComponent(
  'Readiness',
  z.object({
    status: z.literal('ok'),
    info: checkResults.describe(
      'database, migrations (with skills_loaded), catalog (the start-up discovery done and its packages in the catalog: packages, stored, drafts, refused)',
    ),
    error: checkResults,
    details: checkResults,
  }),
  'Every readiness check passed (a failing one answers 503 NOT_READY with the checks)',
);

export const registryHealthView = apiComponent(
  'RegistryHealth',
  z.object({
    skills: z.number().int(),
    versions: z.number().int(),
    by_status: z.record(z.string(), z.number().int()),
    by_domain: z.record(z.string(), z.number().int()).describe('Versions that are not ARCHIVED, by domain'),
    by_agent: z.record(z.string(), z.number().int()),
    drafts: z.array(
      z.object({
        name: z.string(),
        version: z.string(),
        first_error: validationIssueView.nullable(),
        errors: z.number().int(),
      }),
    ),
    refused: z
      .array(
        z.object({
          path: z.string(),
          name: z.string().nullable(),
          version: z.string().nullable(),
          refusal: packageRefusal,
          reason: z.string(),
        }),
      )
      .describe('Packages the last discovery refused, each with its reason (null name: the package could not be read far enough)'),
  }),
  'Totals by status, domain and agent; DRAFT versions with their first error; refused packages with their reason',
);

export type RegistryHealthView = z.input<typeof registryHealthView>;
