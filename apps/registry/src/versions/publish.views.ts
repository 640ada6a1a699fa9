import { z } from 'zod';
import { versionCompatibilityView } from '../compatibility/compatibility.views.js';
import { apiComponent } from '../openapi/openapi-components.js';
import { skillVersionView, validationIssueView } from '../skills/skill.views.js';

/** The wire views of publishing (publish.controller.ts returns exactly these). */

export const publishedPackageView = apiComponent(
  'PublishedPackage',
  z.object({
    outcome: z.enum(['new', 'unchanged']).describe('new (201): stored now; unchanged (200): the same content was published before'),
    version: skillVersionView,
  }),
  'A published package: the version it is',
);

const validatedPackageView = apiComponent(
  'ValidatedPackage',
  z.object({
    outcome: z.literal('valid'),
    name: z.string(),
    version: z.string(),
    content_hash: z.string(),
    report: z.array(validationIssueView).describe('Warnings of the validation (errors would have refused it)'),
    compatibility: versionCompatibilityView.nullable(),
  }),
  'A dry run (dry_run=true) that passed validation: nothing was stored',
);

export type PublishedPackageView = z.input<typeof publishedPackageView>;
export type ValidatedPackageView = z.input<typeof validatedPackageView>;
export const publishOutcomeView = apiComponent(
  'PublishOutcome',
  z.union([publishedPackageView, validatedPackageView]),
  'An unchanged package (the same content was published before), or a dry run that passed',
);
