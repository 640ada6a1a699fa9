import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';
import { skillVersionListView, skillVersionView } from '../skills/skill.views.js';

/** The wire views of the admin routes (admin.controller.ts and DiscoveryService return exactly these). */

const packageOutcome = z.enum(['new', 'updated', 'unchanged', 'refused']);
/** Why a package was refused (register-skill.ts PackageRefusal); the health report's refused list uses it too. */
export const packageRefusal = z.enum(['VERSION_IMMUTABLE', 'DUPLICATE', 'FAILED']);

const packageReportView = apiComponent(
  'PackageReport',
  z.object({
    path: z.string(),
    name: z.string(),
    version: z.string(),
    outcome: packageOutcome,
    status: z.string().nullable(),
    errors: z.number().int(),
    warnings: z.number().int(),
    message: z.string().nullable(),
    refusal: packageRefusal
      .optional()
      .describe('Why a refused package was refused: its version changed on disk, another package claims it, or it could not be registered'),
  }),
  'What discovery did with one package',
);

export const discoveryReportView = apiComponent(
  'DiscoveryReport',
  z.object({
    new: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    refused: z.number().int(),
    archived: z.number().int(),
    missing_roots: z.array(z.string()),
    packages: z.array(packageReportView),
    archived_versions: z.array(z.object({ name: z.string(), version: z.string() })),
  }),
  'Counts of new, updated, unchanged, refused and archived versions, with a report per package',
);

export const registrationView = apiComponent(
  'Registration',
  z.object({
    outcome: packageOutcome.describe('new (201), or updated, unchanged, refused (200)'),
    message: z.string().nullable(),
    version: skillVersionView.nullable(),
  }),
  'What registering one package did',
);

/** The versions a deprecation moved (the same shape as a version list). */
export const deprecatedVersionsView = skillVersionListView;

export type DiscoveryReportView = z.input<typeof discoveryReportView>;
export type RegistrationView = z.input<typeof registrationView>;
