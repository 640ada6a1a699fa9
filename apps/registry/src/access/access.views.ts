import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';

/** The wire view of GET /v1/access (describe-access.ts returns exactly this). */
export const accessView = apiComponent(
  'Access',
  z.object({
    identity: z.string().describe('Who the token acts as (`anonymous` without one)'),
    role: z.enum(['admin', 'publisher', 'agent', 'anonymous']),
    scopes: z.array(z.string()).nullable().describe("A publisher's name scopes (`acme_*`, an exact name, `*`); null for other roles"),
    may: z
      .object({
        read: z.boolean(),
        execute: z.boolean().describe('Start and cancel executions'),
        write_twin: z.boolean().describe('Create branches, work products, revisions and constraints'),
        publish: z.boolean().describe('Publish and deprecate some names (see `scopes`, or `skill`)'),
        promote: z.boolean().describe('Promote on evidence, force a promotion, discover and register from disk'),
      })
      .describe('What the token may do: the server still decides each call'),
    skill: z
      .object({ name: z.string(), may_publish: z.boolean(), may_deprecate: z.boolean() })
      .nullable()
      .describe('For `?skill=`: whether the token may publish and deprecate that name'),
  }),
  "What the caller's token may do, for a client that shows only the actions it allows",
);

export type AccessView = z.input<typeof accessView>;
