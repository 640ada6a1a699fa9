import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';
import { skillStatus } from '../skills/skill.views.js';

/** The wire view of GET /v1/skills/{name}/dependents (dependents-view.ts returns exactly this). */

export const dependentView = apiComponent(
  'Dependent',
  z.object({
    name: z.string(),
    version: z.string(),
    status: skillStatus,
    range: z.string().describe('The semver range it asks for'),
    satisfied_by: z.array(z.string()).describe('ACTIVE and DEPRECATED versions in that range'),
  }),
  'A version of another skill that depends on this one',
);

export const dependentsListView = apiComponent('Dependents', z.object({ skill: z.string(), items: z.array(dependentView) }));

export type DependentsView = z.input<typeof dependentsListView>;
